/**
 * What continue-as-new carries: the run state, trimmed when it is large, and read back by the next
 * run, which may run newer code than the one that wrote it (`migrateCarried`). Pure.
 */
import type { HumanRequest, RequestKind } from '../humans/requests';
import type { Trigger } from '../waves/types';
import { capText, utf8ByteLength } from '../text/utf8';
import type { RunState } from './state';

/** Carried state above this size is trimmed before continue-as-new (Temporal's payload limit is 2 MB). */
export const CARRY_BUDGET_BYTES = 1024 * 1024;

/**
 * Shrink the state carried across continue-as-new when it is large: older context texts (own
 * results, thread, transcript previews) are cut progressively; results, counters, requests, queued
 * messages and flags are kept whole. Returns the bytes it then takes.
 */
export function trimForCarry(state: RunState, budget = CARRY_BUDGET_BYTES): number {
  const size = () => utf8ByteLength(JSON.stringify(state));
  let bytes = size();
  for (const cap of [16 * 1024, 4 * 1024, 1024]) {
    if (bytes <= budget) break;
    for (const memory of Object.values(state.memory)) memory.own = memory.own.map((t) => capText(t, cap));
    state.thread = state.thread.map((e) => ({ ...e, text: capText(e.text, cap) }));
    state.transcript = state.transcript.map((t) => ({ ...t, text: t.text.slice(0, Math.min(500, cap / 8)) }));
    bytes = size();
  }
  return bytes;
}

/** Requests as troupe 0.1 carried them: open ones, held results and decisions in three lists. */
interface CarriedV1 {
  pending?: Array<Omit<HumanRequest, 'held' | 'decision'>>;
  held?: Array<{ agent: string; text: string; requestId: string; triggers: Trigger[] }>;
  decisions?: Array<{ requestId: string; decision: 'approve' | 'reject' | 'answer'; text?: string }>;
}

/**
 * The carried state in the current shape. troupe 0.1 kept requests in three lists (`pending`,
 * `held`, `decisions`); they become one list of requests, decided ones last in decision order.
 */
export function migrateCarried(carried: RunState, now: number): RunState {
  const old = carried as RunState & CarriedV1;
  if (Array.isArray(old.requests)) return carried;
  const heldFor = (id: string) => old.held?.find((h) => h.requestId === id);
  const held = (id: string): Pick<HumanRequest, 'held'> => {
    const h = heldFor(id);
    return h ? { held: { text: h.text, triggers: h.triggers } } : {};
  };
  const requests: HumanRequest[] = (old.pending ?? []).map((p) => ({ ...p, ...held(p.id) }));
  for (const d of old.decisions ?? []) {
    const h = heldFor(d.requestId);
    const kind: RequestKind = 'approval';
    requests.push({
      id: d.requestId,
      kind,
      ...(h ? { agent: h.agent } : {}),
      summary: '',
      since: now,
      ...held(d.requestId),
      decision: { kind: d.decision, ...(d.text !== undefined ? { text: d.text } : {}), at: now },
    });
  }
  const { pending: _p, held: _h, decisions: _d, ...rest } = old;
  return { ...rest, requests };
}
