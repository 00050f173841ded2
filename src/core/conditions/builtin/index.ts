/**
 * The built-in conditions: one line each, in the order "did you mean" hints list them. Each is a
 * plugin in its own file, with everything about it, and registers itself under its key when
 * loaded, as a user's plugin module does; `../registry.ts` loads this file before anything asks.
 * A built-in's params are its compiled condition, whose `kind` is its key.
 */
export * from './max-iterations';
export * from './timeout-ms';
export * from './converged';
export * from './result-matches';
export * from './stuck';
export * from './signal-observed';
export * from './max-messages';
export * from './text-mention';
export * from './token-usage';
export * from './handoff';
export * from './source-match';
export * from './tool-called';
