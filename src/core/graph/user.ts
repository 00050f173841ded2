/**
 * The `user` handoff target: a human, asked through a request of kind `handoff` (docs/teams.md,
 * "Handoffs"). In a file of its own so that conditions can name it without importing the graph's
 * types, which import the conditions.
 */
export const USER = 'user';
