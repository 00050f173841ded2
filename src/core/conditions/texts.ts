/**
 * The condition texts that belong to no single plugin: composites and the prompt's stop lines, the
 * default reason text of a plugin without its own, and helpers plugins share. A built-in's own
 * texts live in its plugin file.
 */

/** `critic` → `Critic`, for prompt descriptions. */
export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `reasonText` of each stop, by reason. */
export const REASON_TEXTS = {
  custom: (reason: string, description: string) => `${reason}: ${description}`,
} as const;

/** Prompt descriptions of conditions (rolebox §1.15 plus troupe's own conditions). */
export const DESCRIBE_TEXTS = {
  anyOf: (parts: string[]) => `(${parts.join(' OR ')})`,
  allOf: (parts: string[]) => `(${parts.join(' AND ')})`,
  anyLine: (parts: string[]) => `This graph stops when ANY of: ${parts.join('; ')}`,
  allLine: (parts: string[]) => `This graph stops when ALL of: ${parts.join(' AND ')}`,
} as const;
