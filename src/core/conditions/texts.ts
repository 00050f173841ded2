/**
 * The condition texts that belong to no single plugin: composites and the prompt's stop lines, the
 * default reason text of a plugin without its own, and helpers plugins share. A built-in's own
 * texts live in its plugin file.
 */

/** `critic` → `Critic`, for prompt descriptions. */
export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The reason text of a plugin that gives none: `<reason>: <description>`. */
export const REASON_TEXTS = {
  custom: (reason: string, description: string) => `${reason}: ${description}`,
} as const;

/** Prompt texts of the composites and of the stop lines that end every agent's system prompt. */
export const DESCRIBE_TEXTS = {
  anyOf: (parts: string[]) => `(${parts.join(' OR ')})`,
  allOf: (parts: string[]) => `(${parts.join(' AND ')})`,
  anyLine: (parts: string[]) => `This graph stops when ANY of: ${parts.join('; ')}`,
  allLine: (parts: string[]) => `This graph stops when ALL of: ${parts.join(' AND ')}`,
} as const;
