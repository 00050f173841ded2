/**
 * Determinism guard (SPEC §10): histories of real runs replay against the current workflow bundle.
 * Histories recorded in test/fixtures/histories (by `TROUPE_RECORD_HISTORIES=1`) replay too, so a
 * workflow change that would break runs already in flight fails here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startHarness, type Harness } from '../helpers/runs';
import { replayHistory } from '../helpers/temporal';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'histories');

const SCENARIOS: Record<string, { yaml: string; script: (h: Harness) => void }> = {
  'review-loop-score': {
    yaml: `
name: replay-loop
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
      - converged: critic
      - max_iterations: 5
`,
    script: (h) => {
      h.stub.script('critic', [{ text: 'score: 50' }, { text: 'score: 90' }]);
      h.stub.script('judge:critic', [{ text: '{"converged": false, "reason": "no"}' }]);
    },
  },
  'star-parallel': {
    yaml: `
name: replay-star
agents:
  a: { instructions: "A." }
  b: { instructions: "B." }
  c: { instructions: "C." }
collaboration:
  topology: star
  agents: [a, b, c]
`,
    script: () => undefined,
  },
  'flow-join-failure': {
    yaml: `
name: replay-join
agents:
  scanner: { instructions: "S." }
  parser: { instructions: "P." }
  analyzer: { instructions: "A." }
collaboration:
  flow: ["parent -> scanner", "parent -> parser", "scanner -> analyzer", "parser -> analyzer", "analyzer -> parent"]
`,
    script: (h) => h.stub.script('analyzer', [{ status: 401 }]),
  },
};

describe('replay of recorded histories', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test.each(Object.keys(SCENARIOS))('a fresh %s history replays deterministically', async (name) => {
    h.stub.reset();
    SCENARIOS[name].script(h);
    const handle = await h.start(SCENARIOS[name].yaml);
    await handle.result();
    const history = await handle.fetchHistory();
    await replayHistory(history, handle.workflowId);
    if (process.env.TROUPE_RECORD_HISTORIES) {
      fs.mkdirSync(FIXTURES, { recursive: true });
      fs.writeFileSync(path.join(FIXTURES, `${name}.json`), JSON.stringify(history));
    }
  });

  const recorded = fs.existsSync(FIXTURES) ? fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json')) : [];
  test('committed histories exist', () => {
    expect(recorded.length).toBeGreaterThanOrEqual(3);
  });
  if (recorded.length > 0) test.each(recorded)('committed history %s replays against the current workflow code', async (file) => {
    const history = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
    await replayHistory(history, file.replace(/\.json$/, ''));
  });
});
