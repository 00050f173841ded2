/**
 * The built-in conditions, by YAML key: one line each, in the order "did you mean" hints and
 * listings use. Each is a plugin in its own file, with everything about it; `../registry.ts`
 * registers them like a user's plugins. A built-in's params are its compiled condition, whose
 * `kind` is its key.
 */
export const BUILTIN_CONDITIONS = {
} as const;
