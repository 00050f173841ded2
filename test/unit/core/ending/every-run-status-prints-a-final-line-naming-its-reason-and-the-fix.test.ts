import { finalLine, reasonDetail, type FinalLineInput } from '../../../../src/core/ending/final-line';

function run(over: Partial<FinalLineInput>): FinalLineInput {
  return {
    status: 'completed',
    reason: 'exit',
    reasonText: '',
    usage: { agentCalls: 6, costUsd: 0, totalTokens: 4200 },
    rounds: 1,
    ...over,
  };
}

describe('finalLine', () => {
  it('completed: the stop detail with rounds, calls and tokens', () => {
    expect(finalLine(run({ reason: 'result_match', reasonText: 'result_match: critic score 90 >= 85', rounds: 3 }))).toBe(
      'completed: critic score 90 >= 85 after 3 rounds, 6 agent calls (4200 tokens)',
    );
  });

  it('completed: shows the cost when there is one', () => {
    const line = finalLine(
      run({ reason: 'converged', reasonText: 'converged: judge accepted critic', usage: { agentCalls: 1, costUsd: 0.01234, totalTokens: 900 } }),
    );
    expect(line).toBe('completed: judge accepted critic after 1 round, 1 agent call (900 tokens, $0.0123)');
  });

  it('exhausted/max_iterations tells the user which setting to raise', () => {
    expect(
      finalLine(run({ status: 'exhausted', reason: 'max_iterations', reasonText: 'max_iterations: loop writer,critic reached 5', usage: { agentCalls: 10, costUsd: 0, totalTokens: 1 } })),
    ).toBe(
      'exhausted: loop writer,critic reached 5 after 1 round, 10 agent calls (1 token); raise collaboration.max_iterations (or the max_iterations condition) to allow more iterations',
    );
  });

  it.each([
    ['stuck', 'stuck: writer repeated the same result 3 times', 'revise its instructions or raise stuck.repeats'],
    ['timeout', 'timeout: 120s of active time elapsed', 'raise the timeout_ms condition to allow more time'],
    ['dead_end', 'dead_end: no edge led on from critic and no exit was taken', 'add an exit edge or loosen the when guards'],
    ['max_messages', 'max_messages: 6 agent results >= 6', 'raise the max_messages condition'],
    ['token_usage', 'token_usage: round used 1234 total tokens >= 1000', 'raise the token_usage condition limits'],
  ])('exhausted/%s gets its own hint', (reason, reasonText, hint) => {
    const line = finalLine(run({ status: 'exhausted', reason, reasonText }));
    expect(line.startsWith(`exhausted: ${reasonText.slice(reason.length + 2)} after`)).toBe(true);
    expect(line).toContain(hint);
  });

  it('budget_exceeded: "stopped", the figures and the setting to raise', () => {
    expect(
      finalLine(
        run({
          status: 'budget_exceeded',
          reason: 'money_budget_exceeded',
          reasonText: 'money budget $0.50 reached ($0.5123 spent after 14 agent calls)',
        }),
      ),
    ).toBe('stopped: money budget $0.50 reached ($0.5123 spent after 14 agent calls); raise budget.max_cost_usd to continue');
    expect(
      finalLine(run({ status: 'budget_exceeded', reason: 'max_turns_exceeded', reasonText: 'agent call budget 3 reached (3 agent calls dispatched)' })),
    ).toBe('stopped: agent call budget 3 reached (3 agent calls dispatched); raise budget.max_agent_calls to continue');
  });

  it('cancelled: user_stop and user_abort are told apart', () => {
    const stop = finalLine(run({ status: 'cancelled', reason: 'user_stop', reasonText: 'user_stop: stop requested' }));
    const abort = finalLine(run({ status: 'cancelled', reason: 'user_abort', reasonText: 'user_abort' }));
    expect(stop).toBe('cancelled: stopped on request (troupe stop) after 6 agent calls; partial results are kept');
    expect(abort).toBe(
      'cancelled: workflow cancelled (troupe cancel) after 6 agent calls; in-flight calls were aborted, partial results are kept',
    );
  });

  it('blocked: the blocker and what to do', () => {
    expect(finalLine(run({ status: 'blocked', reason: 'goal_blocked', reasonText: 'needs database credentials' }))).toBe(
      'blocked: needs database credentials; resolve the blocker, then start a new run',
    );
  });

  it('limit_reached: turn and duration limits name their setting', () => {
    expect(
      finalLine(run({ status: 'limit_reached', reason: 'goal_turn_limit', reasonText: 'Auto-continue turn limit reached (10/10)', rounds: 11 })),
    ).toBe('limit reached: Auto-continue turn limit reached (10/10) after 11 rounds, 6 agent calls (4200 tokens); raise goal.max_turns to continue');
    expect(
      finalLine(run({ status: 'limit_reached', reason: 'goal_duration_limit', reasonText: 'Duration limit reached (9000s / 9000s)' })),
    ).toContain('raise goal.max_duration_ms to continue');
  });

  it('failed/fatal_error: agent, HTTP status, request id and the fix', () => {
    const diagnostics = { status: 401, requestId: 'req_1', message: 'Incorrect API key provided', agent: 'writer' };
    expect(finalLine(run({ status: 'failed', reason: 'fatal_error', reasonText: 'fatal_error: 401', diagnostics }))).toBe(
      "failed: agent writer got HTTP 401 (request id req_1); check OPENAI_API_KEY (or the model's api_key_env)",
    );
    const notFound = { status: 404, message: 'model not found', agent: 'critic' };
    expect(finalLine(run({ status: 'failed', reason: 'fatal_error', reasonText: '', diagnostics: notFound }))).toBe(
      'failed: agent critic got HTTP 404; check the model name and OPENAI_BASE_URL',
    );
    const judge = { status: 400, requestId: 'r9', message: 'bad', agent: 'critic', kind: 'judge' as const };
    expect(finalLine(run({ status: 'failed', reason: 'fatal_error', reasonText: '', diagnostics: judge }))).toBe(
      'failed: judge call for critic got HTTP 400 (request id r9); check the model settings (name, max_tokens, temperature) for this endpoint',
    );
  });

  it('failed/fatal_error without an HTTP status shows the message', () => {
    expect(finalLine(run({ status: 'failed', reason: 'fatal_error', reasonText: 'x', diagnostics: { message: 'bad JSON', agent: 'a' } }))).toBe(
      'failed: agent a got a fatal error: bad JSON',
    );
  });

  it('failed/activity_failed: retries exhausted, with the last error', () => {
    const diagnostics = { status: 500, requestId: 'req_7', message: 'upstream error', agent: 'writer' };
    expect(finalLine(run({ status: 'failed', reason: 'activity_failed', reasonText: 'activity_failed', diagnostics }))).toBe(
      'failed: agent writer still failed after its retries (HTTP 500, request id req_7): upstream error; check the endpoint (OPENAI_BASE_URL) and its availability',
    );
  });

  it('failed/token_window_exceeded and compaction_circuit_breaker name their fixes', () => {
    expect(
      finalLine(run({ status: 'failed', reason: 'token_window_exceeded', reasonText: 'token_window_exceeded: writer needs 140000 tokens > 128000' })),
    ).toBe('failed: writer needs 140000 tokens > 128000; raise model.context_window or shorten the instructions and task');
    expect(
      finalLine(run({ status: 'failed', reason: 'compaction_circuit_breaker', reasonText: 'compaction_circuit_breaker: writer' })),
    ).toBe("failed: writer; compaction failed 3 times in a row, check the compaction model's endpoint");
  });

  it('gives a distinct line for every status', () => {
    const lines = [
      run({ reason: 'exit', reasonText: 'exit: critic took an exit edge' }),
      run({ status: 'exhausted', reason: 'max_iterations', reasonText: 'x' }),
      run({ status: 'budget_exceeded', reason: 'token_budget_exceeded', reasonText: 'x' }),
      run({ status: 'cancelled', reason: 'user_stop', reasonText: 'x' }),
      run({ status: 'blocked', reason: 'goal_blocked', reasonText: 'x' }),
      run({ status: 'limit_reached', reason: 'goal_turn_limit', reasonText: 'x' }),
      run({ status: 'failed', reason: 'activity_failed', reasonText: 'x' }),
    ].map(finalLine);
    expect(new Set(lines.map((l) => l.split(':')[0]))).toEqual(
      new Set(['completed', 'exhausted', 'stopped', 'cancelled', 'blocked', 'limit reached', 'failed']),
    );
  });
});

describe('reasonDetail', () => {
  it('strips the reason label and keeps other texts whole', () => {
    expect(reasonDetail('stuck', 'stuck: writer repeated')).toBe('writer repeated');
    expect(reasonDetail('goal_blocked', 'waiting on legal')).toBe('waiting on legal');
    expect(reasonDetail('exit', '')).toBe('exit');
  });
});
