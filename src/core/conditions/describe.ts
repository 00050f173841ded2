/**
 * Prompt descriptions of stop conditions, so agents know when the graph stops:
 * `This graph stops when ANY of: 5 iterations; 1min elapsed; Critic approves`. A leaf is described
 * by its plugin (its key when the plugin has no `describe`).
 */
import { pluginOf } from './registry';
import { DESCRIBE_TEXTS } from './texts';
import type { Condition, Termination } from './types';

/**
 * Short description of one condition for prompts.
 * @internal exported for tests
 */
export function describeCondition(c: Condition): string {
  switch (c.kind) {
    case 'any_of':
      return DESCRIBE_TEXTS.anyOf(c.items.map(describeCondition));
    case 'all_of':
      return DESCRIBE_TEXTS.allOf(c.items.map(describeCondition));
    default: {
      const { key, plugin, params } = pluginOf(c);
      return plugin?.describe ? plugin.describe(params) : key;
    }
  }
}

/** The prompt lines of a termination expression: an ANY line, an ALL line, each only when its list is non-empty. */
export function describeTermination(t: Termination): string[] {
  const lines: string[] = [];
  if (t.anyOf.length > 0) lines.push(DESCRIBE_TEXTS.anyLine(t.anyOf.map(describeCondition)));
  if (t.allOf.length > 0) lines.push(DESCRIBE_TEXTS.allLine(t.allOf.map(describeCondition)));
  return lines;
}
