/**
 * What continue-as-new carries (docs/versioning.md): the run state, trimmed when it is large, in an
 * envelope that names its schema and the troupe release that started the run. The next execution
 * reads it back through a chain of migrations, one per schema change, so state written by an older
 * release is read in the current shape. Pure.
 */
import type { HumanRequest, RequestKind } from '../humans/requests';
import type { Trigger } from '../waves/types';
import { capText, utf8ByteLength } from '../text/utf8';
import { TROUPE_RELEASE } from './release';
import type { RunState } from './state';

/**
 * Carried state above this size is trimmed before continue-as-new (Temporal's payload limit is 2 MB).
 * @internal exported for tests
 */
export const CARRY_BUDGET_BYTES = 1024 * 1024;

/**
 * Shrink the state carried across continue-as-new when it is large: older context texts (own
 * results, thread, transcript previews) are cut progressively; results, counters, requests, queued
 * messages and flags are kept whole. Returns the bytes it then takes.
 * @internal exported for tests
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

/** The schema of the state continue-as-new carries now; each change adds one to it and a migration below. */
export const CARRY_SCHEMA = 3;

/** What continue-as-new carries. troupe 0.1 and 0.2 carried the bare state (schemas 1 and 2). */
export interface CarriedState {
  schema: number;
  /** The release that started the run. */
  release: string;
  state: RunState;
}

/** Continue-as-new's argument: the state, trimmed, in the current schema. */
export function carryState(state: RunState): CarriedState {
  trimForCarry(state);
  return { schema: CARRY_SCHEMA, release: state.release ?? TROUPE_RELEASE, state };
}

/** Migrations, by the schema they read: each returns the state in the next schema. */
const MIGRATIONS: Record<number, (state: RunState, now: number) => RunState> = {
  1: requestsInOneList,
  2: (state) => ({ ...state, release: state.release ?? '0.2.0' }),
};

/** The schema of a carried value: the envelope's, else 2 for 0.2's bare state and 1 for 0.1's. */
function schemaOf(carried: unknown): { schema: number; state: RunState } {
  const envelope = carried as Partial<CarriedState>;
  if (typeof envelope.schema === 'number' && envelope.state) return { schema: envelope.schema, state: envelope.state };
  const bare = carried as RunState;
  return { schema: Array.isArray(bare.requests) ? 2 : 1, state: bare };
}

/** The carried state in the current shape, through every migration from its schema on. */
export function readCarried(carried: unknown, now: number): RunState {
  let { schema, state } = schemaOf(carried);
  for (; schema < CARRY_SCHEMA; schema += 1) state = MIGRATIONS[schema](state, now);
  return state;
}

/**
 * Schema 1 → 2: troupe 0.1 kept requests in three lists (`pending`, `held`, `decisions`); they become
 * one list of requests, decided ones last in decision order.
 */
function requestsInOneList(carried: RunState, now: number): RunState {
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
  return { ...rest, requests, release: rest.release ?? '0.1.0' };
}
