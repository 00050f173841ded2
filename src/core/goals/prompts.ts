/**
 * Goal prompt texts: the round-1 `<goal_framework>` block and the `<goal_continuation>` prompt. Both
 * show the objective, the success criteria and the constraints, and ask for the evidence and reason
 * the `goal` tool requires. Every user-supplied text is XML-escaped.
 */
import { goalSeconds, type GoalState } from './state';
import { GOAL_TEXTS } from './texts';

/** Escape `& < > " '` (in that order; already-escaped text is escaped again). Newlines stay. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}



function tagged(tag: string, text: string | undefined): string[] {
  return text === undefined ? [] : [`<${tag}>`, escapeXml(text), `</${tag}>`, ''];
}

function goalBody(g: GoalState): string[] {
  return [
    ...tagged('goal_objective', g.objective),
    ...tagged('success_criteria', g.successCriteria),
    ...tagged('constraints', g.constraints),
  ];
}

/**
 * The `<goal_continuation>` prompt sent to each wave-1 agent of a continuation round: escaped
 * objective (criteria, constraints), `- Turns used: k/N`, `- Time elapsed: Xs/Ys`, next steps.
 * `g` is the state after the increment; lines joined with `\n` plus a trailing `\n`.
 */
export function goalContinuationPrompt(g: GoalState, elapsedMs: number): string {
  return [
    '<goal_continuation>',
    GOAL_TEXTS.prompts.continuationIntro,
    '',
    ...goalBody(g),
    '## Progress',
    `- Turns used: ${g.turnCount}/${g.maxTurns}`,
    `- Time elapsed: ${goalSeconds(elapsedMs)}s/${goalSeconds(g.maxDurationMs)}s`,
    '',
    '## Next Steps',
    ...GOAL_TEXTS.prompts.nextSteps,
    '</goal_continuation>',
    '',
  ].join('\n');
}

/**
 * The round-1 `<goal_framework>` block for agents offered the `goal` tool: escaped objective,
 * criteria, constraints, budgets (turns, duration, current turn) and how to report with the tool.
 */
export function goalFrameworkBlock(g: GoalState): string {
  return [
    '<goal_framework>',
    GOAL_TEXTS.prompts.frameworkIntro,
    '',
    ...goalBody(g),
    '## Budget',
    `- Maximum auto-continue turns: ${g.maxTurns}`,
    `- Maximum duration: ${goalSeconds(g.maxDurationMs)} seconds`,
    `- Current turn: ${g.turnCount}/${g.maxTurns}`,
    '',
    '## Reporting with the `goal` tool',
    ...GOAL_TEXTS.prompts.reporting,
    '</goal_framework>',
    '',
  ].join('\n');
}
