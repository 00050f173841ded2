/**
 * troupe's custom search attributes: what a run is findable by in `troupe list`, the Temporal UI's
 * list and `temporal workflow list --query` (docs/operating.md, "Finding runs"). They are registered
 * per namespace by `troupe dev`, the tests and the compose stack; a run sets them only when its client
 * found all of them registered at start, so a server without them never fails a run. Values are
 * stored in plain text (never through a payload codec), so they hold names and statuses, no content.
 */

/** Temporal's indexed value types troupe uses (the SDK's `SearchAttributeType` names). */
export type SearchAttributeKind = 'KEYWORD' | 'BOOL';

/** The attributes: name and type. */
export const SEARCH_ATTRIBUTES = {
  /** The role's graph name. */
  graph: { name: 'TroupeGraph', kind: 'KEYWORD' },
  /** `running` until the run ends, then its status (`completed`, `exhausted`, `failed`, …). */
  status: { name: 'TroupeStatus', kind: 'KEYWORD' },
  /** The stop reason once the run has ended (`result_match`, `max_messages`, …). */
  reason: { name: 'TroupeReason', kind: 'KEYWORD' },
  /** True while a human is needed: a request is pending or the run is paused. */
  waiting: { name: 'TroupeWaiting', kind: 'BOOL' },
  /** The thread the run belongs to (docs/semantics.md, "Teams that go on"): the id of the run that started it. */
  thread: { name: 'TroupeThread', kind: 'KEYWORD' },
} as const satisfies Record<string, { name: string; kind: SearchAttributeKind }>;

/** The status value of a run that has not ended. */
export const RUNNING_STATUS = 'running';

/** `temporal server start-dev --search-attribute` / `temporal operator search-attribute create --type` spelling. */
export function cliTypeOf(kind: SearchAttributeKind): 'Keyword' | 'Bool' {
  return kind === 'KEYWORD' ? 'Keyword' : 'Bool';
}

/** `Name=Type` for every attribute, as `temporal server start-dev --search-attribute` takes them. */
export function searchAttributeFlags(): string[] {
  return Object.values(SEARCH_ATTRIBUTES).map((a) => `${a.name}=${cliTypeOf(a.kind)}`);
}

/** What `troupe list` filters on. */
export interface ListFilter {
  graph?: string;
  status?: string;
  waiting?: boolean;
  thread?: string;
}

/** Quote a value for a list filter (single quotes, backslash-escaped). */
function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The list-filter query for `filter` over troupe's runs (`WorkflowType = 'troupeRun' AND TroupeStatus
 * = 'exhausted'`), the same text that finds them in the UI's search box.
 */
export function listQuery(workflowType: string, filter: ListFilter): string {
  const parts = [`WorkflowType = ${quote(workflowType)}`];
  if (filter.graph !== undefined) parts.push(`${SEARCH_ATTRIBUTES.graph.name} = ${quote(filter.graph)}`);
  if (filter.status !== undefined) parts.push(`${SEARCH_ATTRIBUTES.status.name} = ${quote(filter.status)}`);
  if (filter.waiting !== undefined) parts.push(`${SEARCH_ATTRIBUTES.waiting.name} = ${filter.waiting}`);
  if (filter.thread !== undefined) parts.push(`${SEARCH_ATTRIBUTES.thread.name} = ${quote(filter.thread)}`);
  return parts.join(' AND ');
}
