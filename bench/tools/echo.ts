/**
 * B7's module tool (bench-only): returns a reply of the asked size, so a tool call's history bytes
 * can be set beside a bare activity carrying the same payload.
 */
import { z } from 'zod';
import { defineTool } from '../../src/tools/define';

const FILLER = 'The tool looked the question up and found these facts, listed in order of relevance. ';

/** A deterministic text of `chars` characters. */
export function toolReply(chars: number): string {
  return FILLER.repeat(Math.ceil(chars / FILLER.length)).slice(0, chars);
}

export const tools = [
  defineTool({
    name: 'lookup',
    description: 'Look a question up; answers with `bytes` characters.',
    parameters: z.object({ question: z.string(), bytes: z.int().min(1).max(1_000_000) }),
    execute: ({ bytes }) => toolReply(bytes),
  }),
];
