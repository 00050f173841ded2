/**
 * The stub's gate (test/helpers/stub-llm.ts `stubGate`), checked over real HTTP: a held request stays
 * open, with its peers, until the test opens the gate; later requests pass at once.
 */
import OpenAI from 'openai';
import { startStubLlm, stubGate, type StubLlm } from '../../helpers/stub-llm';

let stub: StubLlm;
let client: OpenAI;

beforeAll(async () => {
  stub = await startStubLlm();
  client = new OpenAI({ baseURL: stub.url, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => stub.close());
afterEach(() => stub.reset());

const call = (agent: string) =>
  client.chat.completions
    .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-troupe-agent': agent } })
    .then((r) => r.choices[0]?.message.content);

test('held requests stay in flight together until open(), then get their scripted replies; later ones pass at once', async () => {
  const gate = stubGate();
  stub.script('a', [gate.hold({ text: 'a held' }), { text: 'a free' }]);
  stub.script('b', [gate.hold({ text: 'b held' })]);
  let answered = 0;
  const a = call('a').finally(() => answered++);
  const b = call('b').finally(() => answered++);
  await stub.waitForRequests(2);
  expect(stub.inFlight()).toBe(2);
  expect(answered).toBe(0);
  expect(gate.isOpen).toBe(false);

  gate.open();
  expect(await Promise.all([a, b])).toEqual(['a held', 'b held']);
  expect(gate.isOpen).toBe(true);
  expect(await call('a')).toBe('a free');
  expect(await call('b')).toBe('b held');
  expect(stub.maxConcurrent()).toBe(2);
});

test('hold() without a step gives the default reply', async () => {
  const gate = stubGate();
  stub.script('c', [gate.hold()]);
  gate.open();
  expect(await call('c')).toBe('c reply 1');
});
