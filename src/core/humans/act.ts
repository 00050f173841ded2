/**
 * Acting on human decisions about held results. Pure: the workflow calls it between waves with its
 * own time; the routing is the same as after a wave.
 */
import { USER, type CompiledGraph } from '../graph/types';
import { addNote, pushThread, type RunState } from '../state/state';
import { terminationView } from '../state/view';
import { conditionHolds } from '../conditions/evaluate';
import { mergeWaves, routeIntoState } from '../waves/routing';
import { takeDecided, type HumanRequest } from './requests';

/**
 * Act on decided requests whose agent result was held back: `approve`/`answer` route the held result
 * (the note or answer goes to the agent's next input), `reject` re-dispatches that agent alone with
 * the reason while the rest of the next wave waits behind it. The answer to a transfer to `user`
 * (request kind `handoff`) dispatches the agent that handed off again, with the answer.
 */
export function actOnDecisions(state: RunState, graph: CompiledGraph, now: number): void {
  for (const request of takeDecided(state, (r) => r.held !== undefined)) {
    const held = request.held as NonNullable<HumanRequest['held']>;
    const decision = request.decision as NonNullable<HumanRequest['decision']>;
    const agent = request.agent as string;
    // the answer to a transfer to `user` goes back to the agent that handed off, which runs again
    if (request.kind === 'handoff') {
      // in a shared thread the answer follows the question where it was asked; an inbox gets a note
      if (decision.text && graph.context === 'thread') pushThread(state, { agent: USER, text: decision.text, kind: 'answer', to: agent });
      else if (decision.text) addNote(state, agent, { kind: 'human_answer', text: decision.text, from: 'human' });
      state.frontier = mergeWaves(state.frontier, [{ agent, triggers: [] }]);
      continue;
    }
    if (decision.kind === 'reject') {
      addNote(state, agent, { kind: 'reject_reason', text: decision.text ?? '', from: 'human' });
      state.deferred = mergeWaves(state.deferred, state.frontier);
      state.frontier = [{ agent, triggers: held.triggers }];
      continue;
    }
    if (decision.text) {
      addNote(state, agent, {
        kind: decision.kind === 'answer' ? 'human_answer' : 'approval_note',
        text: decision.text,
        from: 'human',
      });
    }
    const view = terminationView(state, now);
    routeIntoState(state, graph, [{ agent, text: held.text }], (when) => conditionHolds(when, view));
  }
}

