/**
 * `tool_called: name` or `[names]`: holds once a tool of one of these names ran this round
 * (AutoGen FunctionCallTermination), named as in the agent's `tools:` list (`goal` and `signal`
 * included). A call that ran and failed counts too, as in AutoGen: the tool was executed.
 */
import { fromSchema, oneOrMoreNames, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';
import type { TerminationView } from '../view';

/** Compiled form. */
export interface ToolCalled {
  kind: 'tool_called';
  /** The tool names, in the order written. */
  names: string[];
}


/** The first of the names, in list order, of a tool that ran this round. */
function ran(c: ToolCalled, v: TerminationView): string | undefined {
  const called = v.toolsCalled ?? [];
  return c.names.find((n) => called.includes(n));
}

/** The `tool_called` condition. */
export const toolCalled: ConditionPlugin<ToolCalled> = {
  ...fromSchema(oneOrMoreNames(), (names): ToolCalled => ({ kind: 'tool_called', names })),
  holds: (c, v) => ran(c, v) !== undefined,
  reason: 'tool_called', priority: 1,
  reasonText: (c, v) => `tool_called: tool '${ran(c, v) ?? c.names[0]}' was executed`,
  describe: (c) => `tool ${c.names.map((n) => JSON.stringify(n)).join(' or ')} called`,
  label: (c) => `${c.names.join(' or ')} called`,
};

registerBuiltinCondition('tool_called', toolCalled);
