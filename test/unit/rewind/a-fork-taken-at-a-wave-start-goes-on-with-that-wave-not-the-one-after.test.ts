/**
 * The rewind replay's interceptor (`src/rewind/replay-interceptor.ts`) takes a fork's team state at the
 * first command after step K's wave: when that command dispatches the next wave, the machine has
 * already moved its frontier into it, so the state is read as it stood before that wave began.
 */
import { beforeWave } from '../../../src/rewind/replay-interceptor';
import type { RunState } from '../../../src/core/state/state';
import type { Command } from '../../../src/core/run/types';

const state = {
  frontier: [{ agent: 'carol', triggers: [] }],
  deferred: [],
  round: { round: 1, wave: 3, lastWave: ['bob'] },
} as unknown as RunState;

it('a dispatch: the wave it dispatches is the frontier again, what came after it deferred, and the last wave the one before', () => {
  const items = [{ agent: 'bob', triggers: [{ from: 'alice', text: 'draft' }] }];
  const command = { kind: 'dispatch', items } as unknown as Command;
  const before = beforeWave(state, command, ['alice']);
  expect(before.frontier).toEqual(items);
  expect(before.deferred).toEqual(state.frontier);
  expect(before.round.lastWave).toEqual(['alice']);
  // the run's own state is left as it is
  expect(state.round.lastWave).toEqual(['bob']);
  expect(state.frontier).toEqual([{ agent: 'carol', triggers: [] }]);
});

it('any other command: the state as it is', () => {
  expect(beforeWave(state, { kind: 'judge' } as unknown as Command, ['alice'])).toBe(state);
});
