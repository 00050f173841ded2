/**
 * The peers' own examples, written as troupe YAML: rolebox's termination and topology pages (seeds
 * 000 and 003), AutoGen's round-robin team (seed 002) and the cases in the research notes on both.
 * Each test compiles the documented configuration and pins troupe's compile-time result (edges,
 * loop groups, back edges, effective cap, warnings and errors) and, where it can be decided without
 * running agents, the reason that ends it: on a hand-built round view, or on a simulated round in
 * which every agent answers as scripted. Where troupe deliberately does something else than the
 * peer, the test name says "troupe differs".
 */
import { formatIssue, loadRoleConfig, type LoadResult } from '../../../../src/core/config/load';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { verdictKey } from '../../../../src/core/conditions/view';
import { recordAll, view } from '../../fixtures/termination-view';
import { driveRun } from '../../fixtures/drive-machine';

const CYCLE_WARNING = 'Cycle detected in graph but maxIterations is not set, defaulting to 3';

/** A troupe role.yaml with these agents and this (indented) collaboration block. */
function role(agents: readonly string[], collaboration: string, extra = ''): string {
  const declared = agents.map((a) => `  ${a}: { instructions: "You are ${a}." }`).join('\n');
  return `name: peer-example\nagents:\n${declared}\ncollaboration:\n${collaboration}${extra}`;
}

function load(agents: readonly string[], collaboration: string, extra = ''): LoadResult {
  return loadRoleConfig(role(agents, collaboration, extra), 'role.yaml');
}

const located = (r: LoadResult) => ({ errors: r.errors.map(formatIssue), warnings: r.warnings.map(formatIssue) });
const messages = (issues: LoadResult['warnings']) => issues.map((i) => i.message);
const edgeList = (r: LoadResult) => r.graph!.edges.map((e) => `${e.from} -> ${e.to}${e.label ? `: ${e.label}` : ''}${e.when ? ' (when)' : ''}`);
const backEdges = (r: LoadResult) => r.graph!.loopGroups.map((g) => ({ id: g.id, back: g.backEdges.map((i) => edgeList(r)[i]) }));

describe('rolebox seed 000: termination conditions', () => {
  it('review-loop [writer, critic] with any_of max_iterations 5: cap 5, and writer and critic run 5 times each', () => {
    const r = load(['writer', 'critic'], '  topology: review-loop\n  agents:\n    - writer\n    - critic\n  termination:\n    any_of:\n      - max_iterations: 5\n');
    expect(located(r)).toEqual({ errors: [], warnings: [] });
    expect(edgeList(r)).toEqual(['parent -> writer', 'writer -> critic', 'critic -> writer: loop', 'critic -> parent: exit']);
    expect(backEdges(r)).toEqual([{ id: 'critic,writer', back: ['critic -> writer: loop'] }]);
    expect(r.graph!.maxIterations).toBe(5);
    const round = driveRun(r.graph!, (agent, turn) => `${agent} draft ${turn}`);
    expect(round).toMatchObject({ reason: 'max_iterations', status: 'exhausted', messages: 10, loopCounters: { 'critic,writer': 5 } });
    expect(evaluateTermination(r.graph!.termination, view({ loopCounters: { 'critic,writer': 5 } }))?.reasonText).toBe(
      'max_iterations: loop critic,writer reached 5',
    );
  });

  it('troupe differs: a max_iterations condition alone caps the loop at its N (rolebox kept its root default 3, case 21)', () => {
    const r = load(['writer', 'critic'], '  topology: review-loop\n  agents: [writer, critic]\n  termination:\n    any_of:\n      - max_iterations: 8\n');
    expect(r.graph!.maxIterations).toBe(8);
    expect(r.warnings).toEqual([]);
  });

  it('review-loop [editor, reviewer] with timeout_ms 120000 only: default cap 3 with warning 6; the timeout holds at 120 s of active time', () => {
    const r = load(['editor', 'reviewer'], '  topology: review-loop\n  agents:\n    - editor\n    - reviewer\n  termination:\n    any_of:\n      - timeout_ms: 120000\n');
    expect(located(r)).toEqual({ errors: [], warnings: [`role.yaml:5:1 collaboration.max_iterations: ${CYCLE_WARNING}`] });
    expect(r.graph!.maxIterations).toBe(3);
    expect(evaluateTermination(r.graph!.termination, view({ roundActiveMs: 119_999 }))).toBeNull();
    expect(evaluateTermination(r.graph!.termination, view({ roundActiveMs: 120_000 }))).toMatchObject({ reason: 'timeout', status: 'exhausted' });
    // without agents slowing it down, the cap ends the round first
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_iterations', messages: 6 });
  });

  it('troupe differs: stuck repeats 3 counts one agent repeating itself (rolebox counted agents with equal latest results, so with 2 agents it never fired)', () => {
    const r = load(['generator', 'checker'], '  topology: review-loop\n  agents:\n    - generator\n    - checker\n  termination:\n    any_of:\n      - stuck:\n          repeats: 3\n');
    expect(messages(r.warnings)).toEqual([CYCLE_WARNING]);
    const t = r.graph!.termination;
    // rolebox would have fired here: two agents with the same latest result
    expect(evaluateTermination(t, recordAll(t, [['generator', 'same'], ['checker', 'same']]))).toBeNull();
    const v = recordAll(t, [['generator', 'x'], ['checker', 'ok'], ['generator', 'x'], ['checker', 'ok'], ['generator', 'x']]);
    expect(evaluateTermination(t, v)?.reasonText).toBe('stuck: generator repeated the same result 3 times');
    expect(driveRun(r.graph!, () => 'no progress')).toMatchObject({ reason: 'stuck', messages: 5 });
  });

  it('review-loop [creator, validator] with converged validator: the judge verdict on the latest result ends it', () => {
    const r = load(['creator', 'validator'], '  topology: review-loop\n  agents:\n    - creator\n    - validator\n  termination:\n    any_of:\n      - converged: validator\n');
    expect(messages(r.warnings)).toEqual([CYCLE_WARNING]);
    expect(r.graph!.termination.anyOf).toEqual([{ kind: 'converged', agent: 'validator' }]);
    const t = r.graph!.termination;
    const v = recordAll(t, [['creator', 'draft'], ['validator', 'looks right']]);
    const verdict = (hash: string) => ({ [verdictKey('validator')]: { hash, converged: true, reason: 'meets the criteria' } });
    expect(evaluateTermination(t, { ...v, verdicts: verdict(v.latest.validator.hash) })?.reasonText).toBe(
      'converged: judge accepted validator (meets the criteria)',
    );
    // a verdict on an older result does not count
    expect(evaluateTermination(t, { ...v, verdicts: verdict('0123456789ab') })).toBeNull();
  });

  it('result_matches on solver and evaluator (contains, regex, score_gte, no_changes) compiles in order; contains and score_gte end it', () => {
    const r = load(
      ['solver', 'evaluator'],
      `  topology: review-loop
  agents:
    - solver
    - evaluator
  termination:
    any_of:
      - result_matches:
          agent: solver
          contains: "SOLUTION ACCEPTED"
      - result_matches:
          agent: solver
          regex: "^Score: [89][0-9]"
      - result_matches:
          agent: evaluator
          score_gte: 85
      - result_matches:
          agent: solver
          no_changes: true
`,
    );
    expect(r.errors).toEqual([]);
    expect(r.graph!.termination.anyOf).toEqual([
      { kind: 'result_matches', agent: 'solver', contains: 'SOLUTION ACCEPTED' },
      { kind: 'result_matches', agent: 'solver', regex: '^Score: [89][0-9]' },
      { kind: 'result_matches', agent: 'evaluator', scoreGte: 85 },
      { kind: 'result_matches', agent: 'solver', noChanges: true },
    ]);
    const t = r.graph!.termination;
    expect(evaluateTermination(t, recordAll(t, [['solver', 'SOLUTION ACCEPTED: x = 4']]))?.reasonText).toBe(
      'result_match: solver contains "SOLUTION ACCEPTED"',
    );
    expect(evaluateTermination(t, recordAll(t, [['solver', 'Score: 91 for this one']]))?.reasonText).toBe('result_match: solver matches /^Score: [89][0-9]/');
    expect(evaluateTermination(t, recordAll(t, [['solver', 'x = 4'], ['evaluator', 'Good work.\nscore: 88']]))?.reasonText).toBe(
      'result_match: evaluator score 88 >= 85',
    );
  });

  it('troupe differs: no_changes compares with the agent\'s previous result (in rolebox it held as soon as one result existed)', () => {
    const r = load(['solver', 'evaluator'], '  topology: review-loop\n  agents: [solver, evaluator]\n  termination:\n    any_of:\n      - result_matches:\n          agent: solver\n          no_changes: true\n');
    const t = r.graph!.termination;
    expect(evaluateTermination(t, recordAll(t, [['solver', 'x = 4']]))).toBeNull();
    expect(evaluateTermination(t, recordAll(t, [['solver', 'x = 4'], ['evaluator', 'again'], ['solver', 'x = 4']]))?.reasonText).toBe(
      'result_match: solver repeated its previous result',
    );
  });

  it('troupe differs: the any_of example "converged: judge" names no agent, so it is an error (rolebox warned and asked the judge anyway)', () => {
    const r = load(
      ['writer', 'critic'],
      '  topology: review-loop\n  agents: [writer, critic]\n  termination:\n    any_of:\n      - max_iterations: 10   # 10 次迭代后终止\n      - converged: judge     # 或 judge 判定收敛\n      - timeout_ms: 30000    # 或 30 秒超时\n',
    );
    expect(located(r).errors).toEqual(['role.yaml:11:20 collaboration.termination.any_of[1].converged.agent: termination converged references unknown agent "judge"']);
  });

  it('troupe differs: the all_of example (max_iterations 3 AND evaluator score >= 90) needs both at once; rolebox ended on the score alone', () => {
    const r = load(
      ['solver', 'evaluator'],
      '  topology: review-loop\n  agents: [solver, evaluator]\n  termination:\n    all_of:\n      - max_iterations: 3    # 至少 3 次迭代\n      - result_matches:\n          agent: evaluator\n          score_gte: 90      # 且评分 >= 90\n',
    );
    expect(r.graph!.maxIterations).toBe(3);
    expect(located(r).warnings).toEqual([
      'role.yaml:10:25 collaboration.termination.all_of[0].max_iterations: all_of uses max_iterations 3, which is >= the hard cap 3: the hard cap stops the loop first',
    ]);
    const t = r.graph!.termination;
    const scored = recordAll(t, [['solver', 'x'], ['evaluator', 'score: 95']]);
    expect(evaluateTermination(t, { ...scored, loopCounters: { 'evaluator,solver': 1 } })).toBeNull();
    expect(evaluateTermination(t, { ...scored, loopCounters: { 'evaluator,solver': 3 } })?.reason).toBe('result_match');
  });

  it('troupe differs: "signal_observed(answer)" in any_of is a condition (rolebox dropped the string item)', () => {
    const r = load(['writer', 'critic'], '  topology: review-loop\n  agents: [writer, critic]\n  termination:\n    any_of:\n      - max_iterations: 10\n      - signal_observed(answer)  # 等待 answer 信号\n');
    expect(r.errors).toEqual([]);
    expect(r.graph!.termination.anyOf).toEqual([{ kind: 'max_iterations', n: 10 }, { kind: 'signal_observed', type: 'answer' }]);
    expect(evaluateTermination(r.graph!.termination, view({ signals: ['answer'] }))?.reasonText).toBe('signal: received "answer"');
  });

  it('a satisfied all_of reports its best-priority reason: converged before result_match, stuck, max_iterations, timeout (rolebox case 43)', () => {
    const r = load(
      ['writer', 'critic'],
      '  topology: review-loop\n  agents: [writer, critic]\n  max_iterations: 9\n  termination:\n    all_of:\n      - timeout_ms: 1000\n      - max_iterations: 2\n      - stuck: { repeats: 2 }\n      - result_matches: { agent: critic, contains: OK }\n',
    );
    const t = r.graph!.termination;
    const v = { ...recordAll(t, [['critic', 'OK'], ['critic', 'OK']]), roundActiveMs: 1000, loopCounters: { 'critic,writer': 2 } };
    expect(evaluateTermination(t, v)?.reason).toBe('result_match');
  });
});

describe('rolebox seed 003: topologies', () => {
  it('pipeline [coder, reviewer, tester] with max_iterations 1: a chain to parent, no loop, the run completes by its exit', () => {
    const r = load(['coder', 'reviewer', 'tester'], '  topology: pipeline\n  agents:\n    - coder\n    - reviewer\n    - tester\n  max_iterations: 1\n');
    expect(located(r)).toEqual({ errors: [], warnings: [] });
    expect(edgeList(r)).toEqual(['parent -> coder', 'coder -> reviewer', 'reviewer -> tester', 'tester -> parent']);
    expect(r.graph!.loopGroups).toEqual([]);
    expect(r.graph!.maxIterations).toBe(1);
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'exit', status: 'completed', messages: 3, waves: [['coder'], ['reviewer'], ['tester']] });
  });

  it('review-loop [writer, critic] with max_iterations 5 and any_of max_iterations 5, converged critic, stuck 3: no warning for the template pair', () => {
    const r = load(
      ['writer', 'critic'],
      '  topology: review-loop\n  agents:\n    - writer\n    - critic\n  max_iterations: 5\n  termination:\n    any_of:\n      - max_iterations: 5\n      - converged: critic\n      - stuck:\n          repeats: 3\n',
    );
    expect(located(r)).toEqual({ errors: [], warnings: [] });
    expect(backEdges(r)).toEqual([{ id: 'critic,writer', back: ['critic -> writer: loop'] }]);
    expect(r.graph!.maxIterations).toBe(5);
    // with fresh answers and no judge verdict the cap ends it; a critic repeating itself ends it stuck
    expect(driveRun(r.graph!, (a, turn) => `${a} ${turn}`)).toMatchObject({ reason: 'max_iterations', messages: 10 });
    expect(driveRun(r.graph!, (a, turn) => (a === 'critic' ? 'needs work' : `draft ${turn}`))).toMatchObject({ reason: 'stuck', messages: 6 });
  });

  it('troupe differs: star [researcher, designer, writer] dispatches all three in one wave (rolebox one at a time)', () => {
    const r = load(['researcher', 'designer', 'writer'], '  topology: star\n  agents:\n    - researcher\n    - designer\n    - writer\n');
    expect(located(r)).toEqual({ errors: [], warnings: [] });
    expect(edgeList(r)).toEqual([
      'parent -> researcher',
      'researcher -> parent',
      'parent -> designer',
      'designer -> parent',
      'parent -> writer',
      'writer -> parent',
    ]);
    expect(r.graph!.maxIterations).toBe(0);
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'exit', messages: 3, waves: [['researcher', 'designer', 'writer']] });
  });

  it('the custom flow with two entries: scanner and parser start together, the analyzer runs once with both outputs', () => {
    const r = load(
      ['scanner', 'parser', 'analyzer', 'reporter'],
      `  flow:
    - from: parent
      to: scanner
    - from: parent
      to: parser
    - from: scanner
      to: analyzer
    - from: parser
      to: analyzer
    - from: analyzer
      to: reporter
    - from: reporter
      to: parent
      exit: true
`,
    );
    expect(located(r)).toEqual({ errors: [], warnings: [] });
    expect(r.graph!.entry).toEqual(['scanner', 'parser']);
    expect(r.graph!.loopGroups).toEqual([]);
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'exit', messages: 4, waves: [['scanner', 'parser'], ['analyzer'], ['reporter']] });
  });

  it('string and object edge syntax keep their labels', () => {
    const r = load(
      ['scanner', 'analyzer', 'reporter'],
      '  flow:\n    - "parent -> scanner"\n    - "scanner -> analyzer"\n    - "analyzer -> reporter: handoff"\n    - from: scanner\n      to: analyzer\n      label: "merge results"\n    - reporter -> parent\n',
    );
    expect(edgeList(r)).toEqual(['parent -> scanner', 'scanner -> analyzer: merge results', 'analyzer -> reporter: handoff', 'reporter -> parent']);
    expect(messages(r.warnings)).toEqual(['duplicate edge "scanner -> analyzer": the later one replaces the earlier']);
  });

  it('troupe differs: the hybrid example\'s extra exit from the validator is never taken beside validator -> formatter, so it warns (rolebox left the choice to the LLM router)', () => {
    const r = load(
      ['collector', 'validator', 'formatter'],
      `  topology: pipeline
  agents:
    - collector
    - validator
    - formatter
  flow:
    # 在 collector → validator 之间插入标签
    - from: collector
      to: validator
      label: "validation"
    # 添加一条 validator 到 parent 的额外退出路径
    - from: validator
      to: parent
      exit: true
`,
    );
    expect(r.errors).toEqual([]);
    expect(edgeList(r)).toEqual(['parent -> collector', 'collector -> validator: validation', 'validator -> formatter', 'formatter -> parent', 'validator -> parent']);
    expect(located(r).warnings).toEqual([
      'role.yaml:18:7 collaboration.flow[1]: the exit edge "validator -> parent" is never taken: routing always follows the unguarded edge "validator -> formatter" instead; guard the exit so it can be taken, e.g. when: { result_matches: { agent: validator, contains: APPROVED } }',
    ]);
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'exit', waves: [['collector'], ['validator'], ['formatter']] });
  });

  it('a cycle with no cap anywhere warns "defaulting to 3" and is capped at 3 (validation rule 6)', () => {
    const r = load(['writer', 'critic'], '  topology: review-loop\n  agents: [writer, critic]\n');
    expect(located(r)).toEqual({ errors: [], warnings: [`role.yaml:5:1 collaboration.max_iterations: ${CYCLE_WARNING}`] });
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_iterations', messages: 6, loopCounters: { 'critic,writer': 3 } });
  });
});

describe('rolebox research cases', () => {
  it('troupe differs: max_iterations 0 or -1 is an error (rolebox clamped to 0 and capped the first revisit, case 16)', () => {
    expect(located(load(['a', 'b'], '  topology: review-loop\n  agents: [a, b]\n  max_iterations: 0\n')).errors).toEqual([
      'role.yaml:8:19 collaboration.max_iterations: must be an integer >= 1',
    ]);
    expect(located(load(['a', 'b'], '  topology: review-loop\n  agents: [a, b]\n  max_iterations: -1\n')).errors).toEqual([
      'role.yaml:8:19 collaboration.max_iterations: must be an integer >= 1',
    ]);
  });

  it('root 10 plus a max_iterations 5 condition: cap 10, and the condition stops the loop at 5 (case 21)', () => {
    const r = load(['a', 'b'], '  topology: review-loop\n  agents: [a, b]\n  max_iterations: 10\n  termination:\n    any_of: [ { max_iterations: 5 } ]\n');
    expect(r.graph!.maxIterations).toBe(10);
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_iterations', messages: 10, loopCounters: { 'a,b': 5 } });
  });

  it('the five mixed conditions of case 20 compile in order', () => {
    const r = load(
      ['coder', 'reviewer'],
      '  topology: review-loop\n  agents: [coder, reviewer]\n  termination:\n    any_of:\n      - max_iterations: 2\n      - converged: reviewer\n      - stuck: { repeats: 3 }\n      - timeout_ms: 30000\n      - result_matches: { agent: reviewer, regex: PASS, score_gte: 80, no_changes: true }\n',
    );
    expect(r.graph!.termination.anyOf).toEqual([
      { kind: 'max_iterations', n: 2 },
      { kind: 'converged', agent: 'reviewer' },
      { kind: 'stuck', repeats: 3 },
      { kind: 'timeout_ms', ms: 30000 },
      { kind: 'result_matches', agent: 'reviewer', regex: 'PASS', scoreGte: 80, noChanges: true },
    ]);
    expect(r.graph!.maxIterations).toBe(2);
  });

  it('troupe differs: an unknown condition key is an error with a hint (rolebox skipped it, case 22)', () => {
    const r = load(['a', 'b'], '  topology: review-loop\n  agents: [a, b]\n  termination:\n    any_of:\n      - max_iterations: 5\n      - unknown_future_cond: {}\n      - stuk: { repeats: 2 }\n');
    expect(located(r).errors).toEqual([
      'role.yaml:11:9 collaboration.termination.any_of[1].unknown_future_cond: unknown condition "unknown_future_cond"',
      'role.yaml:12:9 collaboration.termination.any_of[2].stuk: unknown condition "stuk" (did you mean "stuck"?)',
    ]);
  });

  it('troupe differs: writer/reviewer review-loop with max 2 ends exhausted/max_iterations after 4 results (rolebox skipped the revisit and called it completed, case 33)', () => {
    const r = load(['writer', 'reviewer'], '  topology: review-loop\n  agents: [writer, reviewer]\n  max_iterations: 2\n');
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_iterations', status: 'exhausted', messages: 4 });
  });

  it('troupe differs: the flow form of a loop with an unguarded exit (a <-> b, b -> parent, case 32) warns that the exit is never taken', () => {
    const r = load(['a', 'b'], '  flow: ["parent -> a", "a -> b", "b -> a", "b -> parent"]\n  max_iterations: 3\n');
    expect(messages(r.warnings)).toEqual([
      'the exit edge "b -> parent" is never taken: routing always follows the unguarded edge "b -> a" instead; guard the exit so it can be taken, e.g. when: { result_matches: { agent: b, contains: APPROVED } }',
    ]);
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_iterations', messages: 6 });
  });

  it('a condition cap of 1 under a root cap of 100 stops after coder and reviewer (case 37)', () => {
    const r = load(['coder', 'reviewer'], '  topology: review-loop\n  agents: [coder, reviewer]\n  max_iterations: 100\n  termination:\n    any_of: [ { max_iterations: 1 } ]\n');
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_iterations', messages: 2, loopCounters: { 'coder,reviewer': 1 } });
  });

  it('troupe differs: the review-team-allof example (max_iterations 2 AND reviewer contains APPROVED) needs both at once; rolebox ended on APPROVED alone', () => {
    const r = load(
      ['coder', 'reviewer'],
      '  topology: review-loop\n  agents: [coder, reviewer]\n  termination:\n    all_of:\n      - max_iterations: 2\n      - result_matches: { agent: reviewer, contains: APPROVED }\n',
    );
    expect(r.graph!.maxIterations).toBe(2);
    const round = driveRun(r.graph!, (agent) => (agent === 'reviewer' ? 'APPROVED' : 'code'));
    expect(round).toMatchObject({ reason: 'result_match', status: 'completed', messages: 4 });
  });
});

describe('AutoGen seed 002 and research cases: round-robin teams', () => {
  const rr = (agents: string[], termination: string, extra = '') =>
    load(agents, `  topology: round-robin\n  agents: [${agents.join(', ')}]\n  termination:\n${termination}`, extra);

  it('round-robin of three with only MaxMessageTermination(10): cap 4, ends max_messages after exactly 10 messages', () => {
    const r = rr(['a', 'b', 'c'], '    any_of:\n      - max_messages: 10\n');
    expect(located(r)).toEqual({ errors: [], warnings: [] });
    expect(r.graph!.context).toBe('thread');
    expect(backEdges(r)).toEqual([{ id: 'a,b,c', back: ['c -> a: loop'] }]);
    expect(r.graph!.maxIterations).toBe(4);
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_messages', messages: 10, loopCounters: { 'a,b,c': 3 } });
  });

  it('troupe differs: MaxMessageTermination(3) over a1..a4 counts agent results only, so a1, a2, a3 speak (AutoGen counted the task: case 20)', () => {
    const r = rr(['a1', 'a2', 'a3', 'a4'], '    any_of:\n      - max_messages: 3\n');
    expect(r.graph!.maxIterations).toBe(1);
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_messages', messages: 3, waves: [['a1'], ['a2'], ['a3']] });
  });

  it('troupe differs: MaxMessageTermination(4) with Agent1/Agent2 ends after 4 agent results, not 3 task messages and 1 reply (case 22)', () => {
    const r = rr(['agent1', 'agent2'], '    any_of:\n      - max_messages: 4\n');
    expect(r.graph!.maxIterations).toBe(2);
    // agent2's second turn brings both the counter to the cap and the count to 4: the condition wins (case 37)
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_messages', messages: 4, loopCounters: { 'agent1,agent2': 2 } });
  });

  it('TextMentionTermination("TERMINATE") with an assistant and a code executor ends on the assistant\'s second reply (case 23)', () => {
    const r = rr(['assistant', 'executor'], '    any_of:\n      - text_mention: TERMINATE\n');
    expect(messages(r.warnings)).toEqual([CYCLE_WARNING]);
    const replies: Record<string, string[]> = { assistant: ['```python\nprint("Hello, world!")\n```', 'TERMINATE'], executor: ['Hello, world!'] };
    const round = driveRun(r.graph!, (agent, turn) => replies[agent][turn - 1]);
    expect(round).toMatchObject({ reason: 'text_mention', status: 'completed', messages: 3 });
  });

  it('troupe differs: a task that quotes the text never triggers text_mention; only agent results do (AutoGen #6826, case 33)', () => {
    const r = rr(['assistant', 'executor'], '    any_of:\n      - text_mention: TERMINATE\n', 'task: "Reply TERMINATE when done"\n');
    expect(r.graph!.task).toBe('Reply TERMINATE when done');
    expect(evaluateTermination(r.graph!.termination, view())).toBeNull();
  });

  it('troupe differs: MaxMessageTermination(0) is a config error (AutoGen started "already terminated", case 34)', () => {
    expect(located(rr(['a', 'b'], '    any_of:\n      - max_messages: 0\n')).errors).toEqual([
      'role.yaml:10:23 collaboration.termination.any_of[0].max_messages: must be > 0',
    ]);
  });

  it('writer and critic with max_messages 3 OR APPROVE from the critic: either ends it; "NOT APPROVE" also contains APPROVE', () => {
    const r = rr(['writer', 'critic'], '    any_of:\n      - max_messages: 3\n      - text_mention: { text: APPROVE, sources: [critic] }\n');
    expect(r.graph!.maxIterations).toBe(2);
    const t = r.graph!.termination;
    expect(evaluateTermination(t, recordAll(t, [['writer', 'draft'], ['critic', 'fix the intro']]))).toBeNull();
    expect(evaluateTermination(t, recordAll(t, [['writer', 'draft'], ['critic', 'APPROVE']]))?.reasonText).toBe('text_mention: "APPROVE" in critic');
    expect(evaluateTermination(t, recordAll(t, [['writer', 'draft'], ['critic', 'NOT APPROVE']]))?.reason).toBe('text_mention');
    expect(evaluateTermination(t, recordAll(t, [['writer', 'APPROVE'], ['critic', 'no'], ['writer', 'draft 2']]))?.reasonText).toBe(
      'max_messages: 3 agent results >= 3',
    );
  });

  it('the same two as all_of: the mention latches for the round and the count must reach 3 too; max_messages there gives no cap', () => {
    const r = rr(['writer', 'critic'], '    all_of:\n      - max_messages: 3\n      - text_mention: { text: APPROVE, sources: [critic] }\n');
    expect(r.graph!.maxIterations).toBe(3);
    expect(messages(r.warnings)).toEqual([CYCLE_WARNING]);
    const t = r.graph!.termination;
    expect(evaluateTermination(t, recordAll(t, [['writer', 'draft'], ['critic', 'APPROVE']]))).toBeNull();
    expect(evaluateTermination(t, recordAll(t, [['writer', 'draft'], ['critic', 'APPROVE'], ['writer', 'final']]))?.reason).toBe('text_mention');
  });

  it('And(MaxMessage(2), TextMention("stop")): the count holds from the second result on, the mention when it comes (case 35)', () => {
    const r = rr(['a', 'b'], '    all_of:\n      - max_messages: 2\n      - text_mention: stop\n');
    const t = r.graph!.termination;
    expect(evaluateTermination(t, recordAll(t, [['a', 'Hello'], ['b', 'World']]))).toBeNull();
    expect(evaluateTermination(t, recordAll(t, [['a', 'Hello'], ['b', 'World'], ['a', 'stop']]))?.reason).toBe('text_mention');
  });
});
