/**
 * The round machine itself (`src/core/run/step.ts`), one event at a time: what command follows
 * each event, with the fields the workflow's loop acts on, and the state the machine leaves behind.
 * Only the real machine and the real pure modules it calls; the events stand in for the
 * workflow's activities, timers and signals (docs/architecture.md, "The round machine").
 */
import { HUMAN_TEXTS } from '../../../../src/core/humans/texts';
import { clearCompletionChecks, registerCompletionCheck } from '../../../../src/core/checks/pipeline';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { pluginForReason } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { ENDS } from '../../../../src/core/ending/decide';
import { RUN_REASONS, statusForReason } from '../../../../src/core/ending/reasons';
import { buildRunResult, finalAgents, finalText } from '../../../../src/core/ending/result';
import { RUN_END_TEXTS } from '../../../../src/core/ending/texts';
import { gateDigest } from '../../../../src/core/humans/digest';
import { findLoopGroups } from '../../../../src/core/graph/loops';
import { PARENT, type CompiledGraph, type Edge } from '../../../../src/core/graph/types';
import { openHumanRequest } from '../../../../src/core/humans/decisions';
import { decide, pendingRequests } from '../../../../src/core/humans/requests';
import type { AgentCallResult } from '../../../../src/core/llm/contract';
import { preparationOf } from '../../../../src/core/llm/prepare';
import type { ToolDefinition } from '../../../../src/core/llm/tool-contract';
import { outputRetryPrompt } from '../../../../src/core/output/check';
import { OUTPUT_TEXTS } from '../../../../src/core/output/texts';
import { step, type Machine, type StepEnv } from '../../../../src/core/run/step';
import type { Command, JudgeAnswer, RunEvent } from '../../../../src/core/run/types';
import { carryState, readCarried } from '../../../../src/core/state/carry';
import { terminationView } from '../../../../src/core/state/view';
import { completeGraph, drive, driveRun, machineFor, reply } from '../../fixtures/drive-machine';

const ENV: StepEnv = { now: 0, continueAsNewSuggested: false };
const SUGGESTED: StepEnv = { now: 0, continueAsNewSuggested: true };
const USAGE = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
const BEGIN: RunEvent = { kind: 'begin', carried: false };
const PREPARED: RunEvent = { kind: 'prepared' };
const WOKE: RunEvent = { kind: 'woke' };
const DECIDED: RunEvent = { kind: 'decided' };
const TASK_TRIGGER = [{ from: PARENT, text: 'task' }];

/** Edges written `a->b`; an edge to `parent` is an exit. */
function edgesOf(...specs: string[]): Edge[] {
  return specs.map((s) => {
    const [from, to] = s.split('->');
    return { from, to, exit: to === PARENT };
  });
}

/** A compiled graph from edge specs, with its real loop groups. */
function graphOf(specs: string[], extra: Partial<CompiledGraph> = {}): CompiledGraph {
  const edges = edgesOf(...specs);
  return completeGraph({ edges, loopGroups: findLoopGroups(edges), ...extra });
}

const PIPELINE = ['parent->a', 'a->b', 'b->c', 'c->parent'];
const PIPELINE2 = ['parent->a', 'a->b', 'b->parent'];
const STAR = ['parent->a', 'parent->b', 'parent->c', 'a->parent', 'b->parent', 'c->parent'];
/** writer → critic → writer …, the critic's exit never taken (an unguarded exit beside a forward edge). */
const REVIEW = ['parent->w', 'w->c', 'c->w', 'c->parent'];

/** One line per command: what a test compares sequences with. */
function show(c: Command): string {
  switch (c.kind) {
    case 'dispatch':
      return `dispatch${c.dispatch === 'agent' ? '' : `:${c.dispatch}`} ${c.items.map((i) => i.agent).join(',')}`;
    case 'judge':
      return `judge ${c.targets.map((t) => t.agent).join(',')}`;
    case 'wait':
      return `wait ${c.for}`;
    case 'await_decision':
      return `await ${c.requestId}`;
    case 'end':
      return `end ${c.end.status}/${c.end.reason}`;
    default:
      return c.kind;
  }
}

type Dispatch = Extract<Command, { kind: 'dispatch' }>;
type Answer = string | AgentCallResult;

function asDispatch(c: Command): Dispatch {
  if (c.kind !== 'dispatch') throw new Error(`expected a dispatch, got ${show(c)}`);
  return c;
}

function asEnd(c: Command): Extract<Command, { kind: 'end' }> {
  if (c.kind !== 'end') throw new Error(`expected an end, got ${show(c)}`);
  return c;
}

function result(a: Answer): AgentCallResult {
  return typeof a === 'string' ? reply(a) : a;
}

/** The `dispatched` event of a dispatch whose every agent answered (`answers` by agent, default its name in capitals). */
function dispatched(c: Command, answers: Record<string, Answer> = {}, extra: Partial<Extract<RunEvent, { kind: 'dispatched' }>> = {}): RunEvent {
  const d = asDispatch(c);
  return { kind: 'dispatched', outcomes: d.items.map((item) => ({ item, result: result(answers[item.agent] ?? item.agent.toUpperCase()) })), ...extra };
}

/** The `judged` event: every target gets `converged`, or the error. */
function judged(c: Command, verdict: { converged: boolean; reason?: string } | { error: string }): RunEvent {
  if (c.kind !== 'judge') throw new Error(`expected a judge, got ${show(c)}`);
  const answers: JudgeAnswer[] = c.targets.map((target) => ('error' in verdict ? { target, error: verdict.error } : { target, ...verdict, usage: USAGE }));
  return { kind: 'judged', answers };
}

/** A machine stepped by hand, with the trace of every command it gave. */
class Stepper {
  readonly m: Machine;
  readonly trace: string[] = [];
  last!: Command;

  constructor(graph: CompiledGraph) {
    this.m = machineFor(graph);
  }

  get state(): Machine['state'] {
    return this.m.state;
  }

  step(event: RunEvent, env: StepEnv = ENV): Command {
    this.last = step(this.m, event, env);
    this.trace.push(show(this.last));
    return this.last;
  }

  /** begin, prepared: the first wave's command. */
  start(): Command {
    expect(this.step(BEGIN)).toEqual({ kind: 'prepare' });
    return this.step(PREPARED);
  }

  /** Answer the last dispatch (see {@link dispatched}). */
  answer(answers: Record<string, Answer> = {}, env: StepEnv = ENV): Command {
    return this.step(dispatched(this.last, answers), env);
  }

  /** Answer every dispatch (and judge `converged: false`) until some other command (the tests' one {@link drive}). */
  run(answer: (agent: string) => Answer = (a) => a.toUpperCase()): Command {
    const { last, commands } = drive(this.m, { prepare: false, answer: (agent) => answer(agent), judge: () => false }, { after: this.last, maxSteps: 200 });
    this.trace.push(...commands.map(show));
    this.last = last;
    return last;
  }
}

function truncated(text: string): AgentCallResult {
  return { ...reply(text), finishReason: 'length' };
}

function signalled(text: string, type: string, summary: string): AgentCallResult {
  return { ...reply(text), toolEvents: [{ tool: 'signal', type, summary }] };
}

const approve = (text?: string) => ({ kind: 'approve' as const, at: 0, by: 'tester', ...(text ? { text } : {}) });
const reject = (text: string) => ({ kind: 'reject' as const, at: 0, by: 'tester', text });
/** The digest a gate shows (a decision on it must name it). */
const digestOf = (s: Stepper, id: string) => ({ digest: s.state.requests.find((r) => r.id === id)?.digest });

describe('the start of a run', () => {
  it('a fresh run asks for the worker\'s start step first, then dispatches the entry wave with the task', () => {
    const g = graphOf(PIPELINE);
    g.agents.a.model = { name: 'm', baseUrl: 'http://llm.internal/v1' };
    g.agents.b.tools = ['fetch_page', 'signal'];
    // the workflow asks the worker because this graph names an endpoint and a worker tool
    expect(preparationOf(g, 'wf')).toEqual({
      workflowId: 'wf',
      models: [{ who: 'agent a', model: { name: 'm', baseUrl: 'http://llm.internal/v1' } }],
      tools: [{ agent: 'b', names: ['fetch_page'] }],
    });
    const s = new Stepper(g);
    expect(s.step(BEGIN)).toEqual({ kind: 'prepare' });
    expect(s.m.phase).toEqual({ at: 'start' });
    expect(s.state.round.wave).toBe(0);

    const tools: Record<string, ToolDefinition[]> = {
      b: [{ name: 'fetch_page', yamlName: 'fetch_page', description: 'fetch', parameters: { type: 'object' }, timeoutMs: 60_000, retries: 2 }],
    };
    expect(s.step({ kind: 'prepared', tools })).toEqual({
      kind: 'dispatch',
      items: [{ agent: 'a', triggers: TASK_TRIGGER }],
      dispatch: 'agent',
      options: {},
      timed: false,
    });
    expect(s.state.tools).toBe(tools);
    expect(s.m.phase).toEqual({ at: 'wave', kind: 'agent' });
    expect(s.state.round).toMatchObject({ round: 1, wave: 1, lastWave: ['a'] });
    expect(s.state.frontier).toEqual([]);
  });

  it('a graph with a regex condition needs the start step too; a plain one does not, yet the machine still says prepare (the workflow answers it)', () => {
    const regex: Condition = { kind: 'result_matches', agent: 'b', regex: '^ship$' };
    expect(preparationOf(graphOf(PIPELINE2, { termination: { anyOf: [regex], allOf: [] } }), 'wf')).toMatchObject({ models: [], graph: { name: 'sim' } });
    const plain = graphOf(PIPELINE2);
    expect(preparationOf(plain, 'wf')).toBeUndefined();
    const s = new Stepper(plain);
    s.start();
    expect(s.trace).toEqual(['prepare', 'dispatch a']);
  });

  it('a refusal after prepare ends the run with the refusal\'s end, nothing dispatched', () => {
    const g = graphOf(PIPELINE2);
    g.agents.a.model = { name: 'm', apiKeyEnv: 'SECRET_KEY' };
    const s = new Stepper(g);
    s.step(BEGIN);
    const refusal = ENDS.refused('agent a: api_key_env SECRET_KEY is not allowed', { message: 'not allowed' });
    expect(s.step({ kind: 'refused', end: refusal })).toEqual({ kind: 'end', end: refusal });
    expect(refusal).toMatchObject({ status: 'failed', reason: 'fatal_error', reasonText: 'fatal_error: agent a: api_key_env SECRET_KEY is not allowed' });
    expect(s.m.phase).toEqual({ at: 'done', end: refusal });
    expect(s.state.steps).toBe(0);
    expect(s.state.usage.agentCalls).toBe(0);
  });

  it('a start input the workflow refuses ends at the first event', () => {
    const s = new Stepper(graphOf(PIPELINE2));
    expect(show(s.step({ kind: 'refused', end: ENDS.carriedAtStart() }))).toBe('end failed/fatal_error');
  });

  it('a carried run dispatches its frontier at once, no prepare, where the run it continues stopped', () => {
    const g = graphOf(PIPELINE);
    const first = new Stepper(g);
    first.start();
    expect(first.answer({ a: 'draft' }, SUGGESTED)).toEqual({ kind: 'continue_as_new' });
    expect(first.m.phase).toEqual({ at: 'waves' });
    // what continue-as-new carries, through JSON as Temporal sends it
    const carried = readCarried(JSON.parse(JSON.stringify(carryState(first.state))), 0);

    const next = new Stepper(g);
    next.m.state = carried;
    expect(next.step({ kind: 'begin', carried: true })).toEqual({
      kind: 'dispatch',
      items: [{ agent: 'b', triggers: [{ from: 'a', text: 'draft' }] }],
      dispatch: 'agent',
      options: {},
      timed: false,
    });
    expect(next.state.round.wave).toBe(2);
    next.run();
    expect(next.trace).toEqual(['dispatch b', 'dispatch c', 'end completed/exit']);
    expect(next.state.steps).toBe(3);
  });
});

describe('waves of a graph', () => {
  it('a pipeline a → b → c dispatches one agent a wave, each triggered by the one before, and ends completed/exit at c', () => {
    const s = new Stepper(graphOf(PIPELINE));
    expect(s.start()).toMatchObject({ items: [{ agent: 'a', triggers: TASK_TRIGGER }] });
    expect(s.answer({ a: 'A1' })).toEqual({ kind: 'dispatch', items: [{ agent: 'b', triggers: [{ from: 'a', text: 'A1' }] }], dispatch: 'agent', options: {}, timed: false });
    expect(s.answer({ b: 'B1' })).toMatchObject({ items: [{ agent: 'c', triggers: [{ from: 'b', text: 'B1' }] }] });
    const end = s.answer({ c: 'the final text' });
    expect(end).toEqual({ kind: 'end', end: { status: 'completed', reason: 'exit', reasonText: RUN_END_TEXTS.exit(['c']) } });
    expect(RUN_REASONS.exit.status).toBe('completed');
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'dispatch c', 'end completed/exit']);
    expect(finalAgents(s.state)).toEqual(['c']);
    expect(finalText(s.state, finalAgents(s.state))).toBe('the final text');
    expect(s.state).toMatchObject({ steps: 3, frontier: [], round: { round: 1, wave: 3, messages: 3, exits: ['c'], lastWave: ['c'] } });
    expect(s.state.usage.agentCalls).toBe(3);
    expect(buildRunResult(s.state, asEnd(end).end, 0)).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'the final text', finalAgent: 'c', steps: 3 });
  });

  it('a branch with no edge on ends the round exhausted/dead_end, with a warning naming it', () => {
    const s = new Stepper(graphOf(['parent->a', 'a->b']));
    s.start();
    s.run();
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'end exhausted/dead_end']);
    expect(s.state.warnings).toEqual([RUN_END_TEXTS.deadEnd('b', 1)]);
    expect(RUN_REASONS.dead_end.status).toBe('exhausted');
  });

  it('a star dispatches its agents in one wave; all exiting ends completed/exit with every final agent', () => {
    const s = new Stepper(graphOf(STAR));
    expect(s.start()).toEqual({
      kind: 'dispatch',
      items: ['a', 'b', 'c'].map((agent) => ({ agent, triggers: TASK_TRIGGER })),
      dispatch: 'agent',
      options: {},
      timed: false,
    });
    expect(show(s.answer())).toBe('end completed/exit');
    expect(s.state.round.exits).toEqual(['a', 'b', 'c']);
    expect(finalText(s.state, finalAgents(s.state))).toBe('## a\n\nA\n\n## b\n\nB\n\n## c\n\nC');
  });

  it('an agent of a star that fails ends the run with its failure, after recording the outcomes that finished', () => {
    const s = new Stepper(graphOf(STAR));
    const wave = asDispatch(s.start());
    const failure = ENDS.callFailed('b', { diagnostics: { message: 'HTTP 500: upstream', status: 500, agent: 'b', kind: 'agent' }, fatal: false });
    const finished = wave.items.filter((i) => i.agent !== 'b').map((item) => ({ item, result: reply(`${item.agent} done`) }));
    const end = s.step({ kind: 'dispatched', outcomes: finished, failure });
    expect(end).toEqual({ kind: 'end', end: failure });
    expect(failure).toMatchObject({ status: 'failed', reason: 'activity_failed' });
    expect(Object.keys(s.state.results)).toEqual(['a', 'c']);
    expect(s.state.results.c.text).toBe('c done');
    expect(s.state.usage.agentCalls).toBe(2);
    // the wave that failed is not routed: nobody exited
    expect(s.state.round.exits).toEqual([]);
  });

  it('a fatal failure of the first wave ends failed/fatal_error with its diagnostics', () => {
    const s = new Stepper(graphOf(PIPELINE2));
    s.start();
    const failure = ENDS.callFailed('a', { diagnostics: { message: 'bad request', status: 400, requestId: 'req_1' }, fatal: true });
    expect(asEnd(s.step({ kind: 'dispatched', outcomes: [], failure })).end).toEqual({
      status: 'failed',
      reason: 'fatal_error',
      reasonText: RUN_END_TEXTS.fatal('a', ' got HTTP 400 (request id req_1)', 'bad request'),
      diagnostics: { message: 'bad request', status: 400, requestId: 'req_1' },
    });
  });

  it('an event the phase does not expect is a bug of the loop: it throws', () => {
    const s = new Stepper(graphOf(PIPELINE2));
    s.step(BEGIN);
    expect(() => s.step({ kind: 'dispatched', outcomes: [] })).toThrow('step: event dispatched in phase start');
    s.step(PREPARED);
    expect(() => s.step({ kind: 'judged', answers: [] })).toThrow('step: event judged in phase wave');
  });
});

describe('loops', () => {
  it('the loop cap ends a review loop exhausted/max_iterations after exactly N iterations (2N waves)', () => {
    const g = graphOf(REVIEW, { maxIterations: 3 });
    expect(g.loopGroups).toEqual([{ id: 'c,w', nodes: ['c', 'w'], backEdges: [2] }]);
    const s = new Stepper(g);
    s.start();
    const end = s.run();
    expect(s.trace).toEqual(['prepare', ...Array(3).fill(['dispatch w', 'dispatch c']).flat(), 'end exhausted/max_iterations']);
    expect(asEnd(end).end).toEqual({ status: 'exhausted', reason: 'max_iterations', reasonText: RUN_END_TEXTS.hardCap('c,w', 3) });
    expect(s.state.round.loopCounters).toEqual({ 'c,w': 3 });
    expect(s.state.round.messages).toBe(6);
    // the critic is the final agent: it ran last and nobody exited
    expect(finalAgents(s.state)).toEqual(['c']);
  });

  it('a max_iterations condition below the cap ends the loop when its counter reaches N, with the condition\'s text', () => {
    const s = new Stepper(graphOf(REVIEW, { maxIterations: 10, termination: { anyOf: [{ kind: 'max_iterations', n: 2 }], allOf: [] } }));
    s.start();
    expect(asEnd(s.run()).end).toEqual({ status: 'exhausted', reason: 'max_iterations', reasonText: 'max_iterations: loop c,w reached 2' });
    expect(s.trace.filter((t) => t.startsWith('dispatch'))).toEqual(['dispatch w', 'dispatch c', 'dispatch w', 'dispatch c']);
  });
});

describe('the judge (converged)', () => {
  const converged = (criteria?: string): CompiledGraph =>
    graphOf(REVIEW, { maxIterations: 5, termination: { anyOf: [{ kind: 'converged', agent: 'c', ...(criteria ? { criteria } : {}) }], allOf: [] } });

  it('is asked after the judged agent\'s wave only; converged true ends completed/converged with the judge\'s reason', () => {
    const s = new Stepper(converged());
    s.start();
    expect(show(s.answer())).toBe('dispatch c');
    expect(s.answer()).toEqual({ kind: 'judge', targets: [{ agent: 'c' }] });
    expect(s.m.phase).toMatchObject({ at: 'judging' });
    expect(show(s.step(judged(s.last, { converged: false, reason: 'no sources' })))).toBe('dispatch w');
    s.answer();
    expect(show(s.answer())).toBe('judge c');
    const end = s.step(judged(s.last, { converged: true, reason: 'all good' }));
    expect(asEnd(end).end).toEqual({ status: 'completed', reason: 'converged', reasonText: 'converged: judge accepted c (all good)' });
    expect(s.trace).toEqual(['prepare', 'dispatch w', 'dispatch c', 'judge c', 'dispatch w', 'dispatch c', 'judge c', 'end completed/converged']);
    expect(s.state.usage.judgeCalls).toBe(2);
    expect(statusForReason('converged')).toBe('completed');
  });

  it('names the criteria in its target', () => {
    const s = new Stepper(converged('cites two sources'));
    s.start();
    s.answer();
    expect(s.answer()).toEqual({ kind: 'judge', targets: [{ agent: 'c', criteria: 'cites two sources' }] });
  });

  it('a judge that failed never fails the run: the loop goes on, with a warning, and no judge call counted', () => {
    const s = new Stepper(converged());
    s.start();
    s.answer();
    s.answer();
    expect(show(s.step(judged(s.last, { error: 'HTTP 503' })))).toBe('dispatch w');
    expect(s.state.warnings).toEqual([RUN_END_TEXTS.judgeFailed('c', 'HTTP 503')]);
    expect(s.state.usage.judgeCalls).toBe(0);
    expect(Object.values(s.state.round.verdicts)).toEqual([{ hash: s.state.round.latest.c?.hash, converged: false }]);
  });

  it('a judge the round\'s timer cut short ends with the timer\'s end, the wave not routed', () => {
    const g = graphOf(REVIEW, { maxIterations: 5, termination: { anyOf: [{ kind: 'converged', agent: 'c' }, { kind: 'timeout_ms', ms: 1000 }], allOf: [] } });
    const s = new Stepper(g);
    s.start();
    s.answer();
    expect(s.answer()).toEqual({ kind: 'judge', targets: [{ agent: 'c' }] });
    const timedOut = ENDS.condition(evaluateTermination(g.termination, terminationView(s.state, 1000))!);
    const end = s.step({ kind: 'judged', answers: [], timedOut }, { now: 1000, continueAsNewSuggested: false });
    expect(end).toEqual({ kind: 'end', end: timedOut });
    expect(s.state.frontier).toEqual([]);
    expect(s.state.round.loopCounters).toEqual({});
  });

  it('a stop that arrives during a wave skips the judge: the run ends cancelled/user_stop after recording the wave', () => {
    const s = new Stepper(converged());
    s.start();
    s.answer();
    s.state.stop = { reason: 'enough' };
    expect(asEnd(s.answer({ c: 'late' })).end).toEqual(ENDS.userStop('enough'));
    expect(s.state.results.c.text).toBe('late');
    expect(s.trace).not.toContain('judge c');
  });
});

describe('timeout_ms', () => {
  const g = () => graphOf(PIPELINE, { termination: { anyOf: [{ kind: 'timeout_ms', ms: 1000 }], allOf: [] } });

  it('makes every dispatch timed; a wave its timer cut short ends with the timer\'s end, what finished recorded but not routed', () => {
    const s = new Stepper(g());
    expect(s.start()).toMatchObject({ kind: 'dispatch', timed: true });
    expect(s.answer()).toMatchObject({ kind: 'dispatch', items: [{ agent: 'b' }], timed: true });
    const stop = evaluateTermination(s.m.graph.termination, terminationView(s.state, 1000));
    expect(stop).not.toBeNull();
    const timedOut = ENDS.condition(stop!);
    expect(timedOut).toEqual({ status: 'exhausted', reason: 'timeout', reasonText: 'timeout: 1s of active time elapsed' });
    const end = s.step(dispatched(s.last, { b: 'half' }, { timedOut }), { now: 1000, continueAsNewSuggested: false });
    expect(end).toEqual({ kind: 'end', end: timedOut });
    expect(s.state.results.b.text).toBe('half');
    expect(s.state.frontier).toEqual([]);
  });

  it('also ends the run between waves once the round\'s active time reached it', () => {
    const s = new Stepper(g());
    s.start();
    expect(show(s.step(dispatched(s.last), { now: 1500, continueAsNewSuggested: false }))).toBe('end exhausted/timeout');
  });

  it('is a hard limit: it ends the run even while a request waits for a human, which stays unanswered', () => {
    const s = new Stepper(g());
    s.start();
    expect(s.answer({ a: signalled('A', 'need_clarification', 'which audience?') })).toEqual({ kind: 'wait', for: 'humans' });
    expect(show(s.step(WOKE, { now: 2000, continueAsNewSuggested: false }))).toBe('end exhausted/timeout');
    expect(pendingRequests(s.state).map((r) => r.id)).toEqual(['r1']);
  });
});

describe('approval.before_exit', () => {
  const g = () => graphOf(PIPELINE2, { approval: { beforeExit: true } });

  /** A run at its final approval: the await command's request id. */
  function atApproval(): { s: Stepper; id: string } {
    const s = new Stepper(g());
    s.start();
    s.answer();
    const waiting = s.answer({ b: 'final answer' });
    expect(waiting).toEqual({ kind: 'await_decision', requestId: 'r1' });
    return { s, id: 'r1' };
  }

  it('waits for a decision on the final result with a request that is pending in state', () => {
    const { s } = atApproval();
    expect(pendingRequests(s.state)).toEqual([
      {
        id: 'r1',
        kind: 'before_exit',
        agent: 'b',
        summary: HUMAN_TEXTS.asks.beforeExit('b', 'final answer'),
        since: 0,
        payload: undefined,
        // the digest covers the whole final text, as the RunResult carries it
        digest: gateDigest({ kind: 'before_exit', requestId: 'r1', agent: 'b', tool: '', text: 'final answer' }),
      },
    ]);
    expect(s.m.phase).toEqual({ at: 'exit_approval', requestId: 'r1', end: { status: 'completed', reason: 'exit', reasonText: RUN_END_TEXTS.exit(['b']) } });
    // woken with no decision yet: it waits again for the same request
    expect(s.step(DECIDED)).toEqual({ kind: 'await_decision', requestId: 'r1' });
    expect(s.step(WOKE)).toEqual({ kind: 'await_decision', requestId: 'r1' });
  });

  it('approve naming the digest of the final result ends it completed with the round\'s end; one naming none is refused', () => {
    const { s, id } = atApproval();
    expect(decide(s.state, id, approve('ship it'))).toMatchObject({ ok: false, refused: {} });
    expect(s.step(DECIDED)).toEqual({ kind: 'await_decision', requestId: 'r1' });
    expect(decide(s.state, id, { ...approve('ship it'), ...digestOf(s, id) })).toMatchObject({ ok: true });
    expect(s.step(DECIDED)).toEqual({ kind: 'end', end: { status: 'completed', reason: 'exit', reasonText: RUN_END_TEXTS.exit(['b']) } });
    expect(s.state.requests).toEqual([]);
    // a blind approve was refused: the run waited for r1 again
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'await r1', 'await r1', 'end completed/exit']);
  });

  it('reject starts a new round at the final agent alone, with the reason, and asks again at its end', () => {
    const { s, id } = atApproval();
    decide(s.state, id, { ...reject('cite sources'), ...digestOf(s, id) });
    expect(s.step(DECIDED)).toEqual({ kind: 'dispatch', items: [{ agent: 'b', triggers: [] }], dispatch: 'agent', options: {}, timed: false });
    expect(s.state.round).toMatchObject({ round: 2, wave: 1, lastWave: ['b'], exits: [] });
    expect(s.state.notes.b).toEqual([{ kind: 'reject_reason', text: 'cite sources', from: 'human' }]);
    expect(s.answer({ b: 'with sources' })).toEqual({ kind: 'await_decision', requestId: 'r2' });
    decide(s.state, 'r2', { ...approve(), ...digestOf(s, 'r2') });
    expect(show(s.step(DECIDED))).toBe('end completed/exit');
    expect(s.state.results.b).toMatchObject({ text: 'with sources', count: 2 });
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'await r1', 'dispatch b', 'await r2', 'end completed/exit']);
  });

  it('stop while awaiting ends cancelled/user_stop; the request is left unanswered', () => {
    const { s } = atApproval();
    s.state.stop = { reason: 'enough' };
    expect(s.step(DECIDED)).toEqual({ kind: 'end', end: { status: 'cancelled', reason: 'user_stop', reasonText: 'user_stop: stopped by the user (enough)' } });
    expect(pendingRequests(s.state).map((r) => r.id)).toEqual(['r1']);
  });

  it('is not asked when the round did not complete (a failure ends the run at once)', () => {
    const s = new Stepper(g());
    s.start();
    s.answer();
    const failure = ENDS.callFailed('b', { diagnostics: { message: 'boom' }, fatal: false });
    expect(show(s.step({ kind: 'dispatched', outcomes: [], failure }))).toBe('end failed/activity_failed');
    expect(s.state.requests).toEqual([]);
  });
});

describe('pauses and requests to humans', () => {
  it('a pause before a wave waits for pause; a wake while still paused waits again; resumed, the wave is dispatched', () => {
    const s = new Stepper(graphOf(PIPELINE2));
    s.step(BEGIN);
    s.state.paused = true;
    expect(s.step(PREPARED)).toEqual({ kind: 'wait', for: 'pause' });
    expect(s.m.phase).toEqual({ at: 'waves' });
    expect(s.step(WOKE)).toEqual({ kind: 'wait', for: 'pause' });
    s.state.paused = false;
    expect(s.step(WOKE)).toMatchObject({ kind: 'dispatch', items: [{ agent: 'a' }] });
  });

  it('a pause that arrives during a wave holds the next wave, not the one in flight', () => {
    const s = new Stepper(graphOf(PIPELINE));
    s.start();
    s.state.paused = true;
    expect(s.answer()).toEqual({ kind: 'wait', for: 'pause' });
    expect(s.state.frontier.map((i) => i.agent)).toEqual(['b']);
    s.state.paused = false;
    expect(s.step(WOKE)).toMatchObject({ kind: 'dispatch', items: [{ agent: 'b', triggers: [{ from: 'a', text: 'A' }] }] });
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'wait pause', 'dispatch b']);
  });

  it('the signal tool\'s request holds the agent\'s result: the run waits for humans; approve routes it on with the note', () => {
    const s = new Stepper(graphOf(PIPELINE));
    s.start();
    expect(s.answer({ a: signalled('A', 'need_approval', 'may I publish?') })).toEqual({ kind: 'wait', for: 'humans' });
    expect(pendingRequests(s.state)).toEqual([{ id: 'r1', kind: 'approval', agent: 'a', summary: 'may I publish?', since: 0, payload: undefined }]);
    expect(s.state.frontier).toEqual([]);
    expect(s.step(WOKE)).toEqual({ kind: 'wait', for: 'humans' });
    decide(s.state, 'r1', approve('go ahead'));
    expect(s.step(WOKE)).toEqual({ kind: 'dispatch', items: [{ agent: 'b', triggers: [{ from: 'a', text: 'A' }] }], dispatch: 'agent', options: {}, timed: false });
    expect(s.state.notes.a).toEqual([{ kind: 'approval_note', text: 'go ahead', from: 'human' }]);
    expect(s.state.requests).toEqual([]);
  });

  it('reject sends the asking agent back alone with its own triggers and the reason', () => {
    const s = new Stepper(graphOf(PIPELINE));
    s.start();
    s.answer({ a: signalled('A', 'blocked', 'no access') });
    decide(s.state, undefined, reject('try the mirror'));
    expect(s.step(WOKE)).toMatchObject({ kind: 'dispatch', items: [{ agent: 'a', triggers: TASK_TRIGGER }] });
    expect(s.state.notes.a).toEqual([{ kind: 'reject_reason', text: 'try the mirror', from: 'human' }]);
  });

  it('humans before conditions: a request on the wave where the agent would exit is decided before the run ends', () => {
    const s = new Stepper(graphOf(['parent->a', 'a->parent']));
    s.start();
    expect(s.answer({ a: signalled('A', 'need_approval', 'ok?') })).toEqual({ kind: 'wait', for: 'humans' });
    decide(s.state, 'r1', approve());
    expect(show(s.step(WOKE))).toBe('end completed/exit');
    expect(s.state.round.exits).toEqual(['a']);
  });

  it('a request opened through the humans API before a wave makes it wait for humans; once answered the wave runs', () => {
    const s = new Stepper(graphOf(PIPELINE2));
    s.step(BEGIN);
    const request = openHumanRequest(s.state, { kind: 'clarification', agent: 'a', summary: 'which language?', now: 0 });
    expect(request.id).toBe('r1');
    expect(s.step(PREPARED)).toEqual({ kind: 'wait', for: 'humans' });
    expect(decide(s.state, 'r1', { kind: 'answer', text: 'French', at: 0 })).toMatchObject({ ok: true });
    expect(show(s.step(WOKE))).toBe('dispatch a');
  });

  it('a stop while waiting for humans ends cancelled/user_stop', () => {
    const s = new Stepper(graphOf(PIPELINE));
    s.start();
    s.answer({ a: signalled('A', 'need_approval', 'ok?') });
    s.state.stop = {};
    expect(asEnd(s.step(WOKE)).end).toEqual(ENDS.userStop());
  });
});

describe('budgets', () => {
  it('a wave larger than what max_agent_calls leaves is never dispatched: budget_exceeded/max_turns_exceeded', () => {
    const s = new Stepper(graphOf(STAR, { budget: { maxAgentCalls: 2 } }));
    const end = s.start();
    expect(s.trace).toEqual(['prepare', 'end budget_exceeded/max_turns_exceeded']);
    expect(asEnd(end).end.reasonText).toBe('agent call budget 2 would be exceeded: the next wave needs 3 agent calls but only 2 of 2 remain (0 agent calls dispatched)');
    expect(s.state.usage.agentCalls).toBe(0);
    expect(s.state.round.wave).toBe(0);
    expect(RUN_REASONS.max_turns_exceeded.status).toBe('budget_exceeded');
  });

  it('a pipeline stops where the budget is reached, before the next wave', () => {
    const s = new Stepper(graphOf(PIPELINE, { budget: { maxAgentCalls: 2 } }));
    s.start();
    const end = s.run();
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'end budget_exceeded/max_turns_exceeded']);
    expect(asEnd(end).end.reasonText).toBe('agent call budget 2 reached (2 agent calls dispatched)');
  });

  it('a wave that reaches the budget and exits ends by its exit (the condition on the wave wins)', () => {
    const s = new Stepper(graphOf(PIPELINE2, { budget: { maxAgentCalls: 2 } }));
    s.start();
    s.run();
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'end completed/exit']);
  });
});

describe('continue-as-new', () => {
  it('happens between waves when suggested, leaving the frontier for the next execution', () => {
    const s = new Stepper(graphOf(PIPELINE));
    s.step(BEGIN);
    expect(s.step(PREPARED, SUGGESTED)).toEqual({ kind: 'continue_as_new' });
    expect(s.state.round.wave).toBe(0);
    expect(s.state.frontier.map((i) => i.agent)).toEqual(['a']);
  });

  it('never while judging, awaiting a decision, waiting, re-dispatching for a check, or at the end', () => {
    // judging: the wave's judge comes first, then continue-as-new before the next wave
    const judgedRun = new Stepper(graphOf(REVIEW, { maxIterations: 5, termination: { anyOf: [{ kind: 'converged', agent: 'c' }], allOf: [] } }));
    judgedRun.start();
    judgedRun.answer();
    expect(show(judgedRun.answer({}, SUGGESTED))).toBe('judge c');
    expect(judgedRun.step(judged(judgedRun.last, { converged: false }), SUGGESTED)).toEqual({ kind: 'continue_as_new' });

    // awaiting the final approval
    const approval = new Stepper(graphOf(PIPELINE2, { approval: { beforeExit: true } }));
    approval.start();
    approval.answer();
    expect(show(approval.answer({}, SUGGESTED))).toBe('await r1');

    // waiting for a pause
    const paused = new Stepper(graphOf(PIPELINE2));
    paused.start();
    paused.state.paused = true;
    expect(show(paused.answer({}, SUGGESTED))).toBe('wait pause');

    // a schema retry
    const retry = new Stepper(graphOf(PIPELINE2, { output: { schema: { type: 'object' }, maxRetries: 1 } }));
    retry.start();
    retry.answer();
    expect(show(retry.answer({ b: 'not json' }, SUGGESTED))).toBe('dispatch:schema_retry b');

    // the last wave
    const last = new Stepper(graphOf(PIPELINE2));
    last.start();
    last.answer();
    expect(show(last.answer({}, SUGGESTED))).toBe('end completed/exit');
  });
});

describe('round ends: the output schema and completion checks', () => {
  const schema = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] };
  const g = (maxRetries = 2, extra: Partial<CompiledGraph> = {}) => graphOf(PIPELINE2, { output: { schema, maxRetries }, ...extra });

  it('a final reply that is not valid JSON is sent back alone with the schema; a valid retry ends completed with the output', () => {
    const s = new Stepper(g());
    s.start();
    s.answer();
    expect(s.answer({ b: 'looks good to me' })).toEqual({
      kind: 'dispatch',
      items: [{ agent: 'b', triggers: [] }],
      dispatch: 'schema_retry',
      options: {
        responseSchema: schema,
        notes: { b: [{ kind: 'schema_retry', text: outputRetryPrompt(schema, [OUTPUT_TEXTS.check.noJson], 1, 2), from: 'output' }] },
        retryFor: 'output',
      },
      timed: false,
    });
    expect(s.state.outputAttempts).toEqual({ b: 1 });
    expect(s.state.round.wave).toBe(3);
    const end = s.answer({ b: '{"score": 90}' });
    expect(end).toEqual({ kind: 'end', end: { status: 'completed', reason: 'exit', reasonText: RUN_END_TEXTS.exit(['b']) }, output: { output: { score: 90 }, outputValid: true } });
    expect(s.state.outputAttempts).toEqual({});
    // a retry is no message of the graph's, and its edges are not followed again
    expect(s.state.round.messages).toBe(2);
    expect(s.state.round.exits).toEqual(['b']);
    expect(s.state.transcript.map((t) => t.kind)).toEqual(['agent', 'agent', 'schema_retry']);
  });

  it('after max_retries the run ends with the round\'s end and outputValid false with the errors (no end of its own)', () => {
    const s = new Stepper(g(2));
    s.start();
    s.answer();
    expect(show(s.answer({ b: 'nope' }))).toBe('dispatch:schema_retry b');
    const second = asDispatch(s.answer({ b: '{"score": "high"}' }));
    expect(second.dispatch).toBe('schema_retry');
    const errors = ['/score: must be number'];
    expect(second.options.notes?.b).toEqual([{ kind: 'schema_retry', text: outputRetryPrompt(schema, errors, 2, 2), from: 'output' }]);
    const end = asEnd(s.answer({ b: '{"score": "higher"}' }));
    expect(end).toEqual({ kind: 'end', end: { status: 'completed', reason: 'exit', reasonText: RUN_END_TEXTS.exit(['b']) }, output: { outputValid: false, outputErrors: errors } });
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'dispatch:schema_retry b', 'dispatch:schema_retry b', 'end completed/exit']);
  });

  it('once a budget is crossed nothing is re-dispatched: the output is judged as it stands', () => {
    const s = new Stepper(g(2, { budget: { maxAgentCalls: 2 } }));
    s.start();
    s.answer();
    expect(s.answer({ b: 'plain words' })).toEqual({
      kind: 'end',
      end: { status: 'completed', reason: 'exit', reasonText: RUN_END_TEXTS.exit(['b']) },
      output: { outputValid: false, outputErrors: [OUTPUT_TEXTS.check.noJson] },
    });
  });

  it('a stop that arrives during a retry ends cancelled/user_stop once it is back, even when the retry was valid', () => {
    const s = new Stepper(g(2));
    s.start();
    s.answer();
    s.answer({ b: 'nope' });
    s.state.stop = { reason: 'late' };
    expect(asEnd(s.answer({ b: '{"score": 1}' })).end).toEqual(ENDS.userStop('late'));
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'dispatch:schema_retry b', 'end cancelled/user_stop']);
  });

  it('a pause holds a retry like a wave: it waits for pause, then re-dispatches the agent once resumed', () => {
    const s = new Stepper(g(2));
    s.start();
    s.answer();
    s.state.paused = true;
    expect(s.answer({ b: 'nope' })).toEqual({ kind: 'wait', for: 'pause' });
    expect(s.m.phase).toMatchObject({ at: 'retries', by: 'output', targets: [{ agent: 'b' }] });
    s.state.paused = false;
    expect(show(s.step(WOKE))).toBe('dispatch:schema_retry b');
    expect(show(s.answer({ b: '{"score": 3}' }))).toBe('end completed/exit');
  });

  it('a reply of the last retry cut by max_tokens ends the run failed/truncated_output, not with the output as it stands', () => {
    const s = new Stepper(g(1));
    s.start();
    s.answer();
    s.answer({ b: 'nope' });
    expect(s.answer({ b: truncated('{"score": ') })).toEqual({ kind: 'end', end: ENDS.truncated('b', undefined) });
  });

  it('a retry whose call failed ends the run with the failure', () => {
    const s = new Stepper(g(1));
    s.start();
    s.answer();
    s.answer({ b: 'nope' });
    const failure = ENDS.callFailed('b', { diagnostics: { message: 'HTTP 502' }, fatal: false });
    expect(s.step({ kind: 'dispatched', outcomes: [], failure })).toEqual({ kind: 'end', end: failure });
  });

  describe('a registered completion check', () => {
    afterEach(() => clearCompletionChecks());

    it('that names agents sends them back alone (check_retry) with its prompt, then the checks run again', () => {
      let calls = 0;
      registerCompletionCheck('cite', () => (++calls === 1 ? { kind: 'continue', prompt: 'add a citation', agents: ['b'] } : { kind: 'done' }));
      const s = new Stepper(graphOf(PIPELINE2));
      s.start();
      s.answer();
      expect(s.answer()).toEqual({
        kind: 'dispatch',
        items: [{ agent: 'b', triggers: [] }],
        dispatch: 'check_retry',
        options: { notes: { b: [{ kind: 'user_message', text: 'add a citation', from: 'cite' }] }, retryFor: 'cite' },
        timed: false,
      });
      expect(show(s.answer())).toBe('end completed/exit');
      expect(calls).toBe(2);
    });

    it('without agents starts a new round at the entry with its prompt', () => {
      let calls = 0;
      registerCompletionCheck('again', () => (++calls === 1 ? { kind: 'continue', prompt: 'once more' } : { kind: 'done' }));
      const s = new Stepper(graphOf(PIPELINE2));
      s.start();
      s.answer();
      expect(s.answer()).toMatchObject({ kind: 'dispatch', dispatch: 'agent', items: [{ agent: 'a', triggers: TASK_TRIGGER }] });
      expect(s.state.round.round).toBe(2);
      expect(s.state.notes.a).toEqual([{ kind: 'user_message', text: 'once more', from: 'again' }]);
      s.run();
      expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'dispatch a', 'dispatch b', 'end completed/exit']);
    });
  });
});

describe('goals', () => {
  const goal = { objective: 'ship the release', maxTurns: 1, maxDurationMs: 1_000_000 };

  it('a round that ends with the goal active starts a new round with the continuation; at the turn limit the goal\'s end wins over the exit', () => {
    const s = new Stepper(graphOf(PIPELINE2, { goal }));
    s.start();
    s.answer();
    expect(s.answer()).toMatchObject({ kind: 'dispatch', dispatch: 'agent', items: [{ agent: 'a', triggers: TASK_TRIGGER }] });
    expect(s.state.round.round).toBe(2);
    expect(s.state.notes.a).toEqual([expect.objectContaining({ kind: 'goal_continuation', from: 'goal' })]);
    const end = asEnd(s.run());
    expect(end.end).toMatchObject({ status: 'limit_reached', reason: 'goal_never_reported' });
    expect(statusForReason(end.end.reason)).toBe('limit_reached');
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'dispatch b', 'dispatch a', 'dispatch b', 'end limit_reached/goal_never_reported']);
  });

  it('the goal tool completing the goal ends the round after that wave: completed/goal_completed', () => {
    const g = graphOf(PIPELINE, { goal });
    g.agents.a.tools = ['goal'];
    const s = new Stepper(g);
    s.start();
    const done: AgentCallResult = { ...reply('A'), toolEvents: [{ tool: 'goal', action: 'update_status', status: 'completed', evidence: 'tests pass' }] };
    expect(s.answer({ a: done })).toMatchObject({ kind: 'end', end: { status: 'completed', reason: 'goal_completed' } });
    expect(s.trace).toEqual(['prepare', 'dispatch a', 'end completed/goal_completed']);
  });
});

describe('truncated replies', () => {
  it('a reply still cut by max_tokens is recorded, then ends the run failed/truncated_output naming the agent', () => {
    const g = graphOf(PIPELINE);
    g.agents.a.model = { name: 'm', maxTokens: 256 };
    const s = new Stepper(g);
    s.start();
    const end = s.answer({ a: truncated('half a sent') });
    expect(end).toEqual({ kind: 'end', end: ENDS.truncated('a', 256) });
    expect(asEnd(end).end).toEqual({ status: 'failed', reason: 'truncated_output', reasonText: RUN_END_TEXTS.truncated('a', 256) });
    expect(s.state.results.a.text).toBe('half a sent');
    expect(s.state.frontier).toEqual([]);
  });

  it('on_truncated: accept keeps the cut reply and goes on', () => {
    const g = graphOf(PIPELINE);
    g.agents.a.onTruncated = 'accept';
    const s = new Stepper(g);
    s.start();
    expect(s.answer({ a: truncated('half a sent') })).toMatchObject({ kind: 'dispatch', items: [{ agent: 'b', triggers: [{ from: 'a', text: 'half a sent' }] }] });
    s.run();
    expect(s.trace.at(-1)).toBe('end completed/exit');
  });

  it('in a wave of several, the cut one ends the run after every result is recorded', () => {
    const s = new Stepper(graphOf(STAR));
    s.start();
    expect(s.answer({ b: truncated('cut') })).toEqual({ kind: 'end', end: ENDS.truncated('b', undefined) });
    expect(Object.keys(s.state.results)).toEqual(['a', 'b', 'c']);
  });
});

describe('property: every run ends once, with a status and reason that belong together', () => {
  /** A tiny LCG (Numerical Recipes), so the cases are the same on every run. */
  function lcg(seed: number): (n: number) => number {
    let x = seed >>> 0;
    return (n: number) => {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      return Math.floor((x / 2 ** 32) * n);
    };
  }

  interface Case {
    graph: Partial<CompiledGraph> & Pick<CompiledGraph, 'edges'>;
    cap: number;
    maxAgentCalls?: number;
  }

  function randomCase(rand: (n: number) => number): Case {
    const n = 1 + rand(4);
    const agents = Array.from({ length: n }, (_, i) => `a${i}`);
    const shape = rand(3);
    let specs: string[];
    if (shape === 0) {
      // a pipeline, sometimes without its exit (a dead end)
      specs = ['parent->a0', ...agents.slice(1).map((a, i) => `${agents[i]}->${a}`)];
      if (rand(4) > 0) specs.push(`${agents[n - 1]}->parent`);
    } else if (shape === 1) {
      // a loop back from the last agent to an earlier one (or itself)
      specs = ['parent->a0', ...agents.slice(1).map((a, i) => `${agents[i]}->${a}`), `${agents[n - 1]}->${agents[rand(n)]}`, `${agents[n - 1]}->parent`];
    } else {
      // a star
      specs = [...agents.map((a) => `parent->${a}`), ...agents.map((a) => `${a}->parent`)];
    }
    const edges = edgesOf(...specs);
    const loopGroups = findLoopGroups(edges);
    const cap = loopGroups.length > 0 ? 1 + rand(4) : 0;
    const conditions: Condition[] = [];
    if (rand(3) === 0) conditions.push({ kind: 'converged', agent: agents[rand(n)] });
    if (rand(3) === 0) conditions.push({ kind: 'max_messages', n: 1 + rand(6) });
    if (loopGroups.length > 0 && rand(3) === 0) conditions.push({ kind: 'max_iterations', n: 1 + rand(3) });
    const maxAgentCalls = rand(3) === 0 ? 1 + rand(8) : undefined;
    return {
      graph: {
        edges,
        loopGroups,
        maxIterations: cap,
        termination: { anyOf: conditions, allOf: [] },
        approval: { beforeExit: rand(4) === 0 },
        budget: maxAgentCalls !== undefined ? { maxAgentCalls } : {},
        ...(rand(5) === 0 ? { output: { schema: { type: 'object' }, maxRetries: rand(3) } } : {}),
      },
      cap,
      ...(maxAgentCalls !== undefined ? { maxAgentCalls } : {}),
    };
  }

  it('holds for 300 seeded random pipelines, loops and stars', () => {
    const rand = lcg(20240611);
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const c = randomCase(rand);
      const answers = ['plain', '{"ok": true}', 'score: 90'];
      const run = driveRun(c.graph, () => answers[rand(answers.length)], { judge: () => rand(4) === 0 });
      const where = `case ${i}: ${c.graph.edges.map((e) => `${e.from}->${e.to}`).join(' ')}`;
      const ends = run.commands.filter((cmd) => cmd.kind === 'end');
      expect({ where, ends: ends.length, lastIsEnd: run.commands.at(-1)?.kind === 'end' }).toEqual({ where, ends: 1, lastIsEnd: true });
      // the pair is one reasons.ts lists (or a built-in condition's, which it looks up)
      const known = Object.prototype.hasOwnProperty.call(RUN_REASONS, run.reason) || pluginForReason(run.reason) !== undefined;
      expect({ where, known, status: run.status }).toEqual({ where, known: true, status: statusForReason(run.reason) });
      // hard limits hold: the cap bounds every loop, the budget every dispatch
      for (const count of Object.values(run.loopCounters)) expect(count).toBeLessThanOrEqual(c.cap);
      if (c.maxAgentCalls !== undefined) expect(run.state.usage.agentCalls).toBeLessThanOrEqual(c.maxAgentCalls);
      expect(run.commands[0]).toEqual({ kind: 'prepare' });
      seen.add(`${run.status}/${run.reason}`);
    }
    // the cases reach the machine's main ends
    for (const pair of ['completed/exit', 'exhausted/dead_end', 'exhausted/max_iterations', 'completed/converged', 'exhausted/max_messages', 'budget_exceeded/max_turns_exceeded']) {
      expect(seen).toContain(pair);
    }
  });
});
