/**
 * The goal API, one import for the workflow: state and clock
 * (`goal-state.ts`), tool events (`goal-events.ts`), the completion check and run status
 * (`goal-check.ts`) and the prompts (`goal-prompts.ts`). All pure; time is injected as `now`.
 */
export * from './state';
export * from './events';
export * from './check';
export * from './prompts';
export * from './texts';
