/**
 * Activities of the floor workflow (bench-only): one recorded chat-completions request per call,
 * through the same client as troupe, optionally heartbeating first as troupe's LLM activity does.
 * They isolate Temporal's own per-step cost from troupe's workflow and activity code.
 */
import { Context } from '@temporalio/activity';
import { benchClient, directChat } from '../lib/direct';
import type { RecordedRequest } from '../lib/stub-client';

/** Input of one floor step. */
export interface FloorCallInput {
  step: number;
  heartbeat: boolean;
}

/** Creates the floor activities; `bodies` are the requests replayed in order (cycled). */
export function createFloorActivities(baseUrl: string, bodies: () => RecordedRequest[]) {
  const client = benchClient(baseUrl);
  return {
    /** B7: a bare activity that takes `payload` and returns `replyChars` characters. */
    async floorEcho(input: { payload: string; replyChars: number }): Promise<string> {
      return 'r'.repeat(input.replyChars);
    },
    /** A floor step that carries a request of the recorded one's size and returns the reply's text. */
    async floorChat(input: { step: number; request: string }): Promise<string> {
      const all = bodies();
      const { agent, body } = all[input.step % all.length];
      return directChat(client, body, agent);
    },
    async floorCall(input: FloorCallInput): Promise<number> {
      if (input.heartbeat) Context.current().heartbeat();
      const all = bodies();
      const { agent, body } = all[input.step % all.length];
      const text = await directChat(client, body, agent);
      return text.length;
    },
  };
}

/** The floor activity interface, for `import type` in the floor workflow. */
export type FloorActivities = ReturnType<typeof createFloorActivities>;
