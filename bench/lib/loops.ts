/**
 * The workloads the benchmarks run, written once: role configs for troupe (a review loop with a hard
 * cap, a star of K agents) and the no-durability baselines (a sequential loop and a promise pool that
 * replay recorded troupe requests with the same openai client).
 */
import type OpenAI from 'openai';
import { directChat } from './direct';
import type { RecordedRequest } from './stub-client';

/** The essay task every run gets. */
export const BENCH_TASK =
  'Write a 300-word essay on why durable execution matters for long-running LLM agent teams, then revise it until the critic is satisfied.';

const WRITER = 'You write and revise the essay. Keep it under 300 words. Address every point of the latest critique.';
const CRITIC = 'You critique the essay: list concrete problems, then end with a line "score: N" from 0 to 100.';

/** A writer/critic review loop that runs exactly `iterations` rounds (hard cap, no other condition). */
export function reviewLoopYaml(iterations: number, name = 'bench-loop'): string {
  return `
name: ${name}
agents:
  writer: { instructions: ${JSON.stringify(WRITER)} }
  critic: { instructions: ${JSON.stringify(CRITIC)} }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: ${iterations}
`;
}

/** A star of `k` parallel agents (one wave, then exit). */
export function starYaml(k: number): string {
  const names = Array.from({ length: k }, (_, i) => `agent${i + 1}`);
  const agents = names.map((n) => `  ${n}: { instructions: "Answer sub-question ${n} of the task." }`).join('\n');
  return `
name: bench-star-${k}
agents:
${agents}
collaboration:
  topology: star
  agents: [${names.join(', ')}]
`;
}

/** Sends the recorded requests one after another (the sequential no-durability baseline). */
export async function directLoop(client: OpenAI, requests: readonly RecordedRequest[], steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) {
    const r = requests[i % requests.length];
    await directChat(client, r.body, r.agent);
  }
}

/** `workers` concurrent chains of `perChain` sequential calls (the throughput baseline). */
export async function promisePool(
  client: OpenAI,
  requests: readonly RecordedRequest[],
  workers: number,
  perChain: number,
): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; i < perChain; i++) {
        const r = requests[(w * perChain + i) % requests.length];
        await directChat(client, r.body, r.agent);
      }
    }),
  );
}
