/**
 * A module tool: plain TypeScript that the worker runs when an agent calls it. `parameters` is a
 * zod schema (or a JSON Schema object); the model's arguments are checked against it before
 * `execute` runs, and every error goes back to the model as text.
 */
import { z } from 'zod';
// in your own project: import { defineTool } from 'troupe';
import { defineTool } from '../../src';

export const tools = [
  defineTool({
    name: 'word_count',
    description: 'Count the words and lines of a text.',
    parameters: z.object({ text: z.string().describe('The text to count') }),
    execute: ({ text }) => {
      const words = text.split(/\s+/).filter(Boolean).length;
      const lines = text.split('\n').length;
      return { words, lines };
    },
  }),
];
