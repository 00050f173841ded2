/**
 * A selector team's turns in the round machine (docs/teams.md, "Selector teams"): what the selector
 * is asked before a turn, and how its answer (or its failure) places the speaker in the next wave.
 * Pure: the machine calls it, the workflow runs the `selectSpeaker` activity in between.
 */
import { recordCall, addUsage } from '../budgets/ledger';
import type { TokenCounts } from '../conditions/view';
import { agentSummary } from '../graph/teams';
import type { CompiledGraph } from '../graph/types';
import { warn, type RunState } from '../state/state';
import { TO_BE_SELECTED, type WaveItem } from '../waves/types';
import { DEFAULT_SELECTOR_PROMPT, fallbackSpeaker, renderSelectorPrompt, selectorCandidates, SELECTOR_TEXTS } from './selector';

/** What the selector is asked before a turn. */
export interface SelectTurn {
  prompt: string;
  participants: string[];
  candidates: string[];
  previous?: string;
  /** The turn it chooses for (this round's agent results so far, plus one). */
  turn: number;
}

/** What the selector answered: a speaker, none after its attempts, or the failure of its activity. */
export interface SelectAnswer {
  speaker?: string;
  attempts: number;
  usage: TokenCounts;
  rejected: string[];
  error?: string;
}

/** Whether the next wave waits for the selector to choose its speaker. */
export function awaitsSelection(graph: CompiledGraph, state: RunState): boolean {
  return graph.selector !== undefined && state.frontier.some((i) => i.agent === TO_BE_SELECTED);
}

/** The selector's question for the next turn: the prompt over the roles, the candidates and the thread. */
export function selectTurn(graph: CompiledGraph, state: RunState): SelectTurn {
  const selector = graph.selector!;
  const participants = graph.nodes;
  const previous = state.round.lastWave[0] ?? state.previousSpeaker;
  const candidates = selectorCandidates(participants, previous, selector.allowRepeatedSpeaker);
  const prompt = renderSelectorPrompt(selector.prompt ?? DEFAULT_SELECTOR_PROMPT, {
    roles: participants.map((name) => ({ name, description: agentSummary(graph, name) })),
    participants: candidates,
    // a continued thread holds its tasks as entries
    history: [...(state.continuation ? [] : [{ agent: 'user', text: state.task }]), ...state.thread.map((e) => ({ agent: e.agent, text: e.text }))],
  });
  return { prompt, participants, candidates, ...(previous !== undefined ? { previous } : {}), turn: state.round.messages + 1 };
}

/**
 * Place the turn's speaker in the next wave: the selector's choice, or (none, or its activity failed)
 * the next agent in list order, with a warning. Its usage counts like every model call's.
 */
export function placeSpeaker(graph: CompiledGraph, state: RunState, turn: SelectTurn, answer: SelectAnswer): void {
  if (answer.attempts > 0) {
    recordCall(state.usage, { kind: 'selector', model: graph.selector!.model.name, usage: answer.usage, round: state.round.round, pricing: graph.pricing, llmCalls: answer.attempts });
    state.round.usage = addUsage(state.round.usage, answer.usage);
  }
  delete state.previousSpeaker;
  const valid = answer.speaker !== undefined && turn.candidates.includes(answer.speaker);
  const speaker = valid ? answer.speaker! : fallbackSpeaker(turn.participants, turn.previous, graph.selector!.allowRepeatedSpeaker);
  if (!valid) {
    warn(state, answer.error !== undefined ? SELECTOR_TEXTS.failed(answer.error, speaker) : SELECTOR_TEXTS.fallback(answer.attempts, speaker));
  }
  state.frontier = state.frontier.map(
    (item): WaveItem =>
      item.agent === TO_BE_SELECTED ? { agent: speaker, triggers: item.triggers, via: { kind: 'selected', attempts: answer.attempts, ...(valid ? {} : { fallback: true as const }) } } : item,
  );
}
