/** `statusAndReason`: the end `troupe status` and `troupe transcript` print, the reason said once. */
import { statusAndReason } from '../../../../src/core/ending/final-line';

test('a reasonText that starts with its reason has the label taken off', () => {
  expect(statusAndReason({ status: 'failed', reason: 'activity_failed', reasonText: 'activity_failed: agent writer failed after 3 attempts: HTTP 500' })).toBe(
    'failed/activity_failed: agent writer failed after 3 attempts: HTTP 500',
  );
  expect(statusAndReason({ status: 'completed', reason: 'result_match', reasonText: 'result_match: critic score 90 >= 85' })).toBe(
    'completed/result_match: critic score 90 >= 85',
  );
});

test('a reasonText of its own words is kept whole; an empty one or the bare reason adds nothing', () => {
  expect(statusAndReason({ status: 'blocked', reason: 'goal_blocked', reasonText: 'waiting on legal' })).toBe('blocked/goal_blocked: waiting on legal');
  expect(statusAndReason({ status: 'completed', reason: 'exit', reasonText: '' })).toBe('completed/exit');
  expect(statusAndReason({ status: 'limit_reached', reason: 'goal_turn_limit', reasonText: 'goal_turn_limit' })).toBe('limit_reached/goal_turn_limit');
});
