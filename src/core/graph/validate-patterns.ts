/**
 * The backtracking check of a role's regular expressions (docs/semantics.md, "Bounds on hostile input"): the
 * `regex` matchers of its termination conditions and `when` guards, and the `pattern` keywords and
 * `patternProperties` keys of its output schema. A pattern that could backtrack catastrophically on
 * model output is an error located at the pattern. A pattern that does not compile is left to its
 * owner's error (the condition's `invalid regex`, the schema's own check).
 */
import type { PathIssue } from '../config/issues';
import { checkPattern, verdictMessage } from '../config/regex-safety';
import { conditionPatterns, type LocatedCondition } from '../conditions/walk';
import { schemaPatterns } from '../output/patterns';

function compiles(source: string, flags: string): boolean {
  try {
    new RegExp(source, flags);
    return true;
  } catch {
    return false;
  }
}

function issue(noun: 'regex' | 'pattern', source: string, flags: string, path: PathIssue['path'], at?: 'key'): PathIssue[] {
  if (!compiles(source, flags)) return [];
  const verdict = checkPattern(source, flags);
  return verdict.kind === 'safe' ? [] : [{ path, message: verdictMessage(noun, source, verdict), ...(at ? { at } : {}) }];
}

/** Errors for the unsafe patterns of the conditions and of `output.schema` (ajv compiles patterns with `u`). */
export function patternIssues(conditions: readonly LocatedCondition[], outputSchema: unknown): PathIssue[] {
  const fromConditions = conditionPatterns(conditions).flatMap((p) => issue('regex', p.source, p.flags, p.path));
  const fromSchema = schemaPatterns(outputSchema).flatMap((p) =>
    issue('pattern', p.source, 'u', ['output', 'schema', ...p.path], p.key ? 'key' : undefined),
  );
  return [...fromConditions, ...fromSchema];
}
