/**
 * How the offline model plays a selector team's selector (docs/teams.md, "Selector teams"): it
 * names the candidate who has spoken least recently in the prompt's `{history}` (one who has not
 * spoken yet before any who has, in the order the candidates are listed), so a team takes turns in
 * list order and every agent gets the floor. The reply is the name alone, which the selector
 * activity always accepts; after feedback it chooses among the candidates the feedback lists.
 * Derived from the request alone, like every offline reply.
 */

/** A name list as the selector renders `{participants}` and its feedback: `['a', 'b']`. */
const NAME_LIST_RE = /\['(?:[^'\\]|\\.)*'(?:, '(?:[^'\\]|\\.)*')*\]/g;
const NAME_RE = /'((?:[^'\\]|\\.)*)'/g;

/**
 * The text when no candidate list can be found (a custom prompt without `{participants}`): it names
 * nobody, so the activity's feedback lists the candidates and the next answer picks one.
 * @internal exported for tests
 */
export const OFFLINE_SELECTOR_TEXTS = {
  noCandidates: '[offline model] I see no list of candidates to choose from.',
} as const;

function nameLists(text: string): string[][] {
  return [...text.matchAll(NAME_LIST_RE)].map((m) => [...m[0].matchAll(NAME_RE)].map((n) => n[1]!.replace(/\\(.)/g, '$1')));
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Where `name` last spoke in the history: the index of its last block (after a blank line, `name:`
 * and a fence on the next line, as troupe renders `{history}`, or AutoGen's `name: text`), or -1
 * when it has not spoken.
 */
function lastSpoke(prompt: string, name: string): number {
  let at = -1;
  for (const m of prompt.matchAll(new RegExp(`(?:^|\\n\\n)${escapeRegex(name)}:(?: |\\n\`{3,}\\n)`, 'g'))) at = m.index;
  return at;
}

/**
 * The reply to a selector request: the system message is the rendered prompt; the last user
 * message is the ask, or the feedback on the previous reply (both list the candidates).
 */
export function offlineSelection(messages: ReadonlyArray<{ role: string; content: string }>): string {
  const prompt = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  // the ask and every feedback list the candidates
  const listed = nameLists([...messages].reverse().find((m) => m.role === 'user')?.content ?? '');
  const candidates = listed[listed.length - 1] ?? nameLists(prompt)[0] ?? [];
  if (candidates.length === 0) return OFFLINE_SELECTOR_TEXTS.noCandidates;
  let best = candidates[0]!;
  let bestAt = lastSpoke(prompt, best);
  for (const name of candidates.slice(1)) {
    const at = lastSpoke(prompt, name);
    if (at < bestAt) {
      best = name;
      bestAt = at;
    }
  }
  return best;
}
