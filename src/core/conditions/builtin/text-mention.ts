/**
 * `text_mention: text` or `{ text, sources? }`: holds once an agent result this round (from one of
 * `sources`, when given) contains the text, both normalized. An event: the round latches it when
 * the result is recorded, so it stays true for the rest of the round. Only agent results fire it,
 * never the task text, so a task that quotes the stop word cannot end its own run.
 */
import { z } from 'zod';
import { needleOf } from '../../waves/capture';
import { fieldOf, fromSchema, nameIn, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';
import type { TerminationView } from '../view';

/** Compiled form. */
export interface TextMention {
  kind: 'text_mention';
  text: string;
  sources?: string[];
}

const schema = z.union([
  z.string().min(1),
  z.strictObject({ text: z.string().min(1), sources: z.array(z.string().min(1)).min(1).optional() }),
]);

/** Key of a mention's latch in `TerminationView.latches`: the text and the set of sources. */
export function latchKey(c: TextMention): string {
  return `text_mention:${JSON.stringify([c.text, [...(c.sources ?? [])].sort()])}`;
}

/** An agent whose latest result mentions the text now, to name in the reason. */
function mentionSource(c: TextMention, v: TerminationView): string | undefined {
  const needle = needleOf(c.text);
  const agents = c.sources ?? Object.keys(v.latest);
  return agents.find((a) => v.latest[a]?.text.includes(needle));
}

/** The `text_mention` condition. */
export const textMention: ConditionPlugin<TextMention> = {
  ...fromSchema(
    schema,
    (d): TextMention =>
      typeof d === 'string'
        ? { kind: 'text_mention', text: d }
        : { kind: 'text_mention', text: d.text, ...(d.sources && { sources: d.sources.map((s) => s.trim()) }) },
  ),
  agents: (value) => {
    const sources = fieldOf(value, 'sources');
    if (!Array.isArray(sources)) return [];
    return sources.flatMap((v, i) => {
      const agent = nameIn(v);
      return agent === undefined ? [] : [{ agent, path: ['sources', i] }];
    });
  },
  latch: {
    key: latchKey,
    fires: (c, agent, normalizedText) => (!c.sources || c.sources.includes(agent)) && normalizedText.includes(needleOf(c.text)),
  },
  holds: (c, v) => v.latches[latchKey(c)] === true,
  reason: 'text_mention', priority: 1,
  reasonText: (c, v) => {
    const agent = mentionSource(c, v);
    return agent ? `text_mention: ${JSON.stringify(c.text)} in ${agent}` : `text_mention: ${JSON.stringify(c.text)} mentioned this round`;
  },
  describe: (c) => `${JSON.stringify(c.text)} mentioned`,
  label: (c) => `"${c.text}" mentioned${c.sources ? ` by ${c.sources.join(', ')}` : ''}`,
};

registerBuiltinCondition('text_mention', textMention);
