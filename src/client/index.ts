/**
 * The client side of troupe, in one folder: start a run and ask it for its status (`runs.ts`),
 * follow it (`follow.ts`, over `run-history.ts` and `pending-activities.ts`), decide its human
 * requests (`human-decisions.ts`) and find runs (`find-runs.ts`). None of it loads workflow code: the
 * names both sides use are the contract's (`src/contract.ts`).
 */
export * from './runs';
export * from './follow';
export * from './human-decisions';
export * from './find-runs';
export * from './team-state';
export { readInFlightCalls } from './pending-activities';
export { webUiLink } from './web-ui';
