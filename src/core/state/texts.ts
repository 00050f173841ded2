/**
 * Texts of the run state's bounds (docs/semantics.md, "Bounds on hostile input"): what a run reports when a
 * list that grows with signals reaches its cap. In one place so tests pin them.
 */
export const STATE_TEXTS = {
  warningsDropped: (n: number, kept: number) => `${n} earlier warning${n === 1 ? ' was' : 's were'} dropped (the last ${kept} are kept)`,
  messageDropped: (to: string | undefined, max: number) =>
    `ignored message signal${to ? ` to ${to}` : ''}: ${max} messages already wait for ${to ? 'its' : 'the'} next turn`,
  messagesFull: (maxBytes: number) => `ignored message signal: queued messages already hold ${maxBytes / 1024} KiB`,
  signalsDropped: (max: number) => `the signal ledger keeps the last ${max} signals; older ones were dropped`,
  signalTypesFull: (type: string, max: number) =>
    `signal ${type} is in the ledger but not seen by signal_observed this round: ${max} types were already seen`,
} as const;
