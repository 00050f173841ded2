/**
 * A paired probe of the selector's `{history}` form on a real model: the selector requests a run
 * made (as the local model kit logs them, one JSON file per request in `REAL_MODEL_LOG_DIR`) are sent
 * again with their history rendered two ways — AutoGen's unfenced `agent: text` blocks, and troupe's
 * fenced blocks (`renderHistory`, core/teams/selector.ts) — the same situations, the same ask, and
 * each reply is read as the selector activity reads it (`readSelection`). It reports, per form, how
 * many first replies named a valid candidate and which speakers they chose. Not part of `npm test`.
 *
 *   TROUPE_REAL_BASE_URL=http://127.0.0.1:18080/v1 npx tsx test/real/selector-probe.ts LOG_DIR... [--samples 3] [--temperature 0.7] [--json out.json]
 *
 * `--samples` replies are asked per situation and form (at `--temperature`; the suite's selector runs
 * at 0, where one sample is all there is).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import { readSelection, renderHistory, type SelectorHistoryEntry } from '../../src/core/teams/selector';

interface Situation {
  file: string;
  participants: string[];
  candidates: string[];
  previous?: string;
  history: SelectorHistoryEntry[];
  /** The system prompt around `{history}`. */
  before: string;
  after: string;
  ask: string;
}

const HISTORY_START = 'Only return the role.\n\n';
const HISTORY_END = '\n\nRead the above conversation.';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** `['a', 'b']` as Python prints a list of names. */
function names(text: string): string[] {
  return [...text.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1]);
}

/** The messages of a `{history}` in either form (fenced blocks, or `agent: text` blocks of known names). */
function parseHistory(text: string, agents: string[]): SelectorHistoryEntry[] {
  const entries: SelectorHistoryEntry[] = [];
  const fenced = /^([^\s:]+):\n(`{3,})\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(fenced)) entries.push({ agent: m[1], text: m[3] });
  if (entries.length > 0) return entries;
  const header = new RegExp(`(?:^|\\n\\n)(${agents.map((a) => a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}): `, 'g');
  const starts = [...text.matchAll(header)];
  starts.forEach((m, i) => {
    const from = m.index + m[0].length;
    const to = i + 1 < starts.length ? starts[i + 1].index : text.length;
    entries.push({ agent: m[1], text: text.slice(from, to) });
  });
  return entries;
}

/** The selector requests among a log folder's requests. */
function situations(dir: string): Situation[] {
  const out: Situation[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const req = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as {
      messages?: Array<{ role: string; content: string }>;
      /** The messages as they were, when a composed situation gives them (a forged line cannot be told from a turn once unfenced). */
      history?: SelectorHistoryEntry[];
    };
    const [system, user] = req.messages ?? [];
    if (req.messages?.length !== 2 || !system?.content.startsWith('You are in a role play game')) continue;
    const start = system.content.indexOf(HISTORY_START);
    const end = system.content.lastIndexOf(HISTORY_END);
    if (start < 0 || end < start) continue;
    const roles = system.content.slice(0, start).split('\n').slice(1, -1);
    const participants = roles.map((r) => r.slice(0, r.indexOf(':')));
    const candidates = names(user.content.slice(user.content.lastIndexOf('one of ')));
    const previous = /^(\S+) just spoke\./.exec(user.content)?.[1];
    out.push({
      file,
      participants,
      candidates,
      ...(previous ? { previous } : {}),
      history: req.history ?? parseHistory(system.content.slice(start + HISTORY_START.length, end), ['user', ...participants]),
      before: system.content.slice(0, start + HISTORY_START.length),
      after: system.content.slice(end),
      ask: user.content,
    });
  }
  return out;
}

/** AutoGen's form: `agent: text` blocks separated by blank lines (troupe's before the fence). */
function unfenced(history: SelectorHistoryEntry[]): string {
  return history.map((e) => `${e.agent}: ${e.text}`.trimEnd()).join('\n\n');
}

/**
 * One selector request, as the activity sends it. Over node:http(s), without a deadline: a local server
 * answers one request at a time, and fetch gives up on headers after 300 s while it queues.
 */
function ask(baseUrl: string, system: string, user: string, temperature: number): Promise<string> {
  const body = JSON.stringify({ model: 'local', temperature, max_tokens: 20, messages: [{ role: 'system', content: system }, { role: 'user', content: user }] });
  const url = new URL(`${baseUrl.replace(/\/$/, '')}/chat/completions`);
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer local' } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (data += chunk));
      res.on('end', () => {
        try {
          const parsed = JSON.parse(data) as { choices?: Array<{ message?: { content?: string } }> };
          resolve(parsed.choices?.[0]?.message?.content ?? '');
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const baseUrl = process.env.TROUPE_REAL_BASE_URL;
  const dirs = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (!baseUrl || dirs.length === 0) throw new Error('usage: TROUPE_REAL_BASE_URL=… tsx test/real/selector-probe.ts LOG_DIR... [--samples N] [--temperature T]');
  const samples = Number(flag('samples') ?? 3);
  const temperature = Number(flag('temperature') ?? 0.7);
  const all = dirs.flatMap(situations);
  const forms = { unfenced, fenced: (h: SelectorHistoryEntry[]) => renderHistory(h) } as const;
  const rows: Array<{ file: string; form: string; reply: string; valid: boolean; speaker?: string }> = [];
  for (const s of all) {
    for (const [form, render] of Object.entries(forms)) {
      const system = `${s.before}${render(s.history)}${s.after}`;
      for (let i = 0; i < samples; i += 1) {
        const reply = await ask(baseUrl, system, s.ask, temperature);
        const read = readSelection(reply, { participants: s.participants, candidates: s.candidates, ...(s.previous ? { previous: s.previous } : {}) });
        rows.push({ file: s.file, form, reply, valid: read.ok, ...(read.ok ? { speaker: read.speaker } : {}) });
        process.stderr.write(`[probe] ${s.file} ${form} #${i + 1}: ${read.ok ? read.speaker : `invalid ${JSON.stringify(reply)}`}\n`);
      }
    }
  }
  const lines = [`situations: ${all.length}, samples each: ${samples}, temperature ${temperature}`];
  for (const form of Object.keys(forms)) {
    const mine = rows.filter((r) => r.form === form);
    const chosen = new Map<string, number>();
    for (const r of mine) if (r.speaker) chosen.set(r.speaker, (chosen.get(r.speaker) ?? 0) + 1);
    lines.push(`${form}: valid first replies ${mine.filter((r) => r.valid).length}/${mine.length}; chosen ${[...chosen].map(([n, c]) => `${n} ${c}`).join(', ')}`);
  }
  const paired = all.length * samples;
  const same = rows.filter((r) => r.form === 'unfenced').filter((r, i) => rows.filter((q) => q.form === 'fenced')[i]?.speaker === r.speaker).length;
  lines.push(`same speaker in both forms (sample by sample): ${same}/${paired}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  const json = flag('json');
  if (json) fs.writeFileSync(json, JSON.stringify({ samples, temperature, situations: all.length, rows }, null, 2));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
