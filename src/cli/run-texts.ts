/** User-visible texts of the run-time CLI commands (run, worker, status, signals, dev). */
import type { DecisionRecord, PendingRequest } from '../core/humans/requests';

const DECIDED = { approve: 'approved', reject: 'rejected', answer: 'answered' } as const;

export const RUN_TEXT = {
  noTask: (file: string) => `no task: pass --task "..." or set task: in ${file}`,
  started: (id: string, queue: string) => `started run ${id} on task queue ${queue}`,
  detached: (id: string) => `follow it with: troupe status ${id}  ·  troupe result ${id}`,
  notFound: (id: string) => `no run with id ${id}`,
  step: (round: number, wave: number, agent: string, tokens: number, hash: string, preview: string) =>
    `  [round ${round} · wave ${wave}] ${agent} (${tokens} tok, #${hash}) ${preview}`,
  toolCall: (t: { tool: string; arguments: string; ok: boolean; result: string; durationMs: number }) =>
    `      ${t.ok ? '↳' : '✗'} ${t.tool}(${t.arguments}) ${(t.durationMs / 1000).toFixed(1)}s → ${t.result}`,
  paused: (id: string, reason?: string) => `  ⏸ paused${reason ? ` (${reason})` : ''} — resume with: troupe resume ${id}`,
  awaiting: (id: string, r: PendingRequest) => {
    const who = r.agent ? `${r.agent} ` : '';
    const lines = [`  ✋ waiting for a human: ${r.id} (${r.kind}) ${who}— ${r.summary}`];
    if (r.kind === 'clarification' || r.kind === 'blocked') lines.push(`     answer:  troupe answer ${id} "<your answer>" --request ${r.id}`);
    lines.push(`     approve: troupe approve ${id} --request ${r.id} [--note "..."]`);
    lines.push(`     reject:  troupe reject ${id} --request ${r.id} --reason "..."`);
    return lines.join('\n');
  },
  warning: (text: string) => `  ⚠ ${text}`,
  /** A human's decision: which request, what, who and when (status, transcript, follow lines). */
  decision: (d: DecisionRecord) =>
    `  ✓ ${d.requestId} (${d.request})${d.agent ? ` ${d.agent}` : ''} ${DECIDED[d.kind]} by ${d.by ?? 'an unnamed sender'} at ${d.at}${d.text ? ` — ${d.text.replace(/\s+/g, ' ').slice(0, 100)}` : ''}`,
  workerStarted: (address: string, namespace: string, queue: string) =>
    `troupe worker polling task queue "${queue}" on ${address} (namespace ${namespace}); Ctrl+C to stop`,
  sent: (what: string, id: string) => `sent ${what} to ${id}`,
  sentDecision: (what: string, request: string, by: string, id: string) => `sent ${what} (${request}) by ${by} to ${id}`,
  /** Who decided when neither --by nor the OS names a user. */
  unknownDecider: 'unknown',
  noPending: (id: string) => `run ${id} has no pending request`,
  choosePending: (id: string, ids: string[]) =>
    `run ${id} has ${ids.length} pending requests (${ids.join(', ')}); name one with --request`,
  notPending: (id: string, request: string, ids: string[]) =>
    `request ${request} is not pending on run ${id} (pending: ${ids.length ? ids.join(', ') : 'none'})`,
  badPayload: (message: string) => `--payload must be JSON: ${message}`,
  badSignalType: (type: string) => `signal type "${type}" must match [a-z][a-z0-9_]*`,
  needReason: '--reason is required for reject',
  cancelled: (id: string) => `cancellation requested for ${id}`,
  uiLink: (ui: string, namespace: string, id: string) =>
    `Web UI: ${ui}/namespaces/${namespace}/workflows/${encodeURIComponent(id)}`,
} as const;
