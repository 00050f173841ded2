/**
 * What a gate decision names (docs/semantics.md, "Humans in the loop", "Gates"): the digest of
 * exactly what a gated request shows — a tool call's arguments as the tool will get them, or the
 * final result `before_exit` asks about. The workflow computes it when it opens the request and shows
 * it with the request; `approve` and `reject` must name it, so nobody decides a gate they have not
 * seen. Pure (the hashing is the pure-JS SHA-256 the workflow already uses for results).
 */
import { sha256Hex } from '../text/hash';

/** The prefix of a gate digest: `sha256:` and 64 lowercase hex characters follow. */
export const GATE_DIGEST_PREFIX = 'sha256:';

/** The version tag that starts the canonical form (a change of the form changes every digest). */
const CANONICAL_FORM = 'troupe.gate/1';

/** What a gated request shows, as its digest covers it. */
export interface GateShown {
  /** `tool_call` or `before_exit`. */
  kind: string;
  /** The request's id (`r1`): a digest names one request of a run. */
  requestId: string;
  /** The agent asking (a tool call), or the final agents joined with `,` (`before_exit`). */
  agent: string;
  /** The tool's name in the role file; empty for `before_exit`. */
  tool: string;
  /** The exact arguments text the tool will get, or the exact final text. */
  text: string;
}

/**
 * The digest of what a gate shows: `sha256:<hex>` of the JSON array
 * `["troupe.gate/1", kind, requestId, agent, tool, text]` (JSON strings, so no two inputs share a form).
 */
export function gateDigest(shown: GateShown): string {
  const canonical = JSON.stringify([CANONICAL_FORM, shown.kind, shown.requestId, shown.agent, shown.tool, shown.text]);
  return `${GATE_DIGEST_PREFIX}${sha256Hex(canonical)}`;
}
