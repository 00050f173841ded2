/**
 * The log of `troupe worker` and `troupe dev` (src/cli/worker-log.ts): a failed activity attempt,
 * logged by the SDK's own activity code, is one line (time, level, activity type, attempt, workflow,
 * the error's message), never the stack or the task token; other entries keep their scalar fields.
 * `TROUPE_LOG_LEVEL` sets the level in any case, and debug keeps the SDK's format with its stacks.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { LogEntry } from '@temporalio/worker';
import { ACTIVITY_TEXTS } from '../../../src/activities/texts';
import { main } from '../../../src/cli/main';
import { formatLogEntry, LOG_LEVEL_ENV, logLevelFromEnv, workerLogger } from '../../../src/cli/worker-log';

const TASK_TOKEN = Buffer.from('a-task-token-of-the-attempt').toString('base64');
const TIME = /^\d\d:\d\d:\d\d /;

/** Run an activity that throws `error` in the SDK's activity environment, logging with the worker's logger at `level`. */
async function failedAttempt(level: 'INFO' | 'DEBUG', error: Error, write: (line: string) => void): Promise<void> {
  const env = new MockActivityEnvironment(
    { activityType: 'callAgent', attempt: 2, base64TaskToken: TASK_TOKEN, workflowExecution: { workflowId: 'essay-20260101-abcde', runId: 'r-1' } },
    { logger: workerLogger(level, write) },
  );
  await expect(
    env.run(async () => {
      throw error;
    }),
  ).rejects.toBe(error);
}

test('a failed activity attempt is one line: activity type, attempt, workflow and the error message, no stack, no task token', async () => {
  const message = ACTIVITY_TEXTS.llm.http('agent', 'writer', 503, 'upstream overloaded', 'req_7');
  const failure = ApplicationFailure.create({ type: 'TroupeRetryable', message, details: [{ kind: 'agent', message }] });
  expect(failure.stack).toContain('\n    at ');
  const lines: string[] = [];
  await failedAttempt('INFO', failure, (l) => lines.push(l));
  expect(lines).toHaveLength(1);
  const [line] = lines;
  expect(line).toMatch(TIME);
  expect(line.replace(TIME, '')).toBe(`WARN activity callAgent failed (attempt 2, workflow essay-20260101-abcde): ${message}`);
  expect(message).toMatch(/^agent writer: /);
  expect(line).not.toContain('\n');
  expect(line).not.toContain(TASK_TOKEN);
  expect(line).not.toContain(' at ');
});

test('an error with a cause says both messages, on one line', () => {
  const cause = new Error('connect ECONNREFUSED 127.0.0.1:9');
  const error = new TypeError('fetch failed', { cause });
  const entry: LogEntry = {
    level: 'WARN',
    message: 'Activity failed',
    timestampNanos: 1_700_000_000_000_000_000n,
    meta: { activityType: 'callTool', isLocal: false, attempt: 1, taskToken: TASK_TOKEN, workflowId: 'w', error, durationMs: 3 },
  };
  expect(formatLogEntry(entry).replace(TIME, '')).toBe('WARN activity callTool failed (attempt 1, workflow w): fetch failed (connect ECONNREFUSED 127.0.0.1:9)');
});

test('other entries keep their message and scalar fields, without task tokens or encoded tasks', () => {
  const entry = (message: string, meta: Record<string, unknown>): LogEntry => ({ level: 'ERROR', message, timestampNanos: 0n, meta });
  expect(formatLogEntry({ ...entry('Worker state changed', { sdkComponent: 'worker', taskQueue: 'troupe', state: 'RUNNING' }), level: 'INFO' }).replace(TIME, '')).toBe(
    'INFO Worker state changed (state=RUNNING)',
  );
  const start = formatLogEntry(
    entry('Error while processing ActivityTask.start: bad input', {
      activityType: 'prepareRun',
      isLocal: true,
      attempt: 1,
      taskToken: TASK_TOKEN,
      workflowId: 'w',
      error: new Error('bad input'),
      task: '{"taskToken":"…"}',
      taskEncoded: 'AAAA',
    }),
  );
  expect(start.replace(TIME, '')).toBe('ERROR Error while processing ActivityTask.start: bad input (local activity prepareRun, attempt 1, workflow w)');
  expect(formatLogEntry(entry('Worker failed', { error: new Error('first line\n    at somewhere (x.js:1:1)') })).replace(TIME, '')).toBe(
    'ERROR Worker failed: first line at somewhere (x.js:1:1)',
  );
});

test('at debug the SDK format, stack and all, is kept', async () => {
  const lines: string[] = [];
  await failedAttempt('DEBUG', ApplicationFailure.create({ message: 'agent writer: HTTP 500' }), (l) => lines.push(l));
  const stderr = lines.join('\n');
  expect(stderr).toContain('[WARN] Activity failed');
  expect(stderr).toMatch(/\n\s+at /);
  expect(stderr).toContain('[DEBUG] Activity started');
});

test('TROUPE_LOG_LEVEL sets the level in any case; unset gives the default; anything else is a one-line error', () => {
  expect(logLevelFromEnv('INFO', {})).toBe('INFO');
  expect(logLevelFromEnv('WARN', { [LOG_LEVEL_ENV]: 'debug' })).toBe('DEBUG');
  expect(logLevelFromEnv('INFO', { [LOG_LEVEL_ENV]: ' Warn ' })).toBe('WARN');
  expect(logLevelFromEnv('INFO', { [LOG_LEVEL_ENV]: 'ERROR' })).toBe('ERROR');
  expect(() => logLevelFromEnv('INFO', { [LOG_LEVEL_ENV]: 'loud' })).toThrow(
    'TROUPE_LOG_LEVEL must be one of trace, debug, info, warn, error (any case), not "loud"',
  );
});

test('troupe worker and troupe dev refuse a TROUPE_LOG_LEVEL that names no level before they start anything', async () => {
  let stderr = '';
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  const saved = { level: process.env[LOG_LEVEL_ENV], address: process.env.TEMPORAL_ADDRESS };
  process.env[LOG_LEVEL_ENV] = 'verbose';
  // nothing listens here: reaching the connection step would print "cannot reach Temporal" instead
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
  try {
    expect(await main(['worker'])).toBe(1);
    expect(await main(['dev', '--exit'])).toBe(1);
  } finally {
    spy.mockRestore();
    for (const [key, value] of [[LOG_LEVEL_ENV, saved.level], ['TEMPORAL_ADDRESS', saved.address]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const line = 'TROUPE_LOG_LEVEL must be one of trace, debug, info, warn, error (any case), not "verbose"\n';
  expect(stderr).toBe(line + line);
});
