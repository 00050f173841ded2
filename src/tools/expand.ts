/**
 * `${VAR}` expansion in a tools file. A stdio server receives only a handful of safe variables from
 * the worker (HOME, PATH, ...) plus the `env` its entry lists, so secrets reach a server only when the
 * tools file names them: `TOKEN: ${GITHUB_TOKEN}`. The values come from the worker's own environment,
 * never from a run. Pure.
 */

const VARIABLE = /\$\$\{|\$\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Messages of expansion, so tests can pin them.
 * @internal exported for tests
 */
export const EXPAND_MESSAGES = {
  unset: (names: readonly string[]) =>
    names.length === 1
      ? `environment variable ${names[0]} is not set on the worker`
      : `environment variables ${names.join(', ')} are not set on the worker`,
  badName: (name: string) => `"\${${name}}" is not a variable name (letters, digits and _, not starting with a digit)`,
} as const;

/**
 * The expanded text and the values it took from the environment (the worker redacts them from every
 * text that leaves an activity: they are often secrets), or why it cannot be expanded.
 */
type Expansion = { ok: true; value: string; used: Array<{ name: string; value: string }> } | { ok: false; message: string };

/**
 * Replaces every `${NAME}` in `text` with `env[NAME]`; `$${` stands for a literal `${`. A variable
 * that is unset (set to the empty string counts as set) makes the whole value an error naming it.
 */
export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>): Expansion {
  const unset: string[] = [];
  const used: Array<{ name: string; value: string }> = [];
  let badName: string | undefined;
  const value = text.replace(VARIABLE, (match: string, name: string | undefined) => {
    if (match === '$${') return '${';
    const n = name ?? '';
    if (!VARIABLE_NAME.test(n)) {
      badName ??= n;
      return match;
    }
    const v = env[n];
    if (v === undefined) {
      if (!unset.includes(n)) unset.push(n);
      return match;
    }
    if (v !== '') used.push({ name: n, value: v });
    return v;
  });
  if (badName !== undefined) return { ok: false, message: EXPAND_MESSAGES.badName(badName) };
  if (unset.length > 0) return { ok: false, message: EXPAND_MESSAGES.unset(unset) };
  return { ok: true, value, used };
}
