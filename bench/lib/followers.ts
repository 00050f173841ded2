/**
 * Parent side of the B8 followers: forks {@link ./follower-process} (through tsx) connected to one
 * dev server, and asks it to follow a batch of runs to their ends. The child is killed with the
 * parent.
 */
import * as path from 'node:path';
import { forkChild } from './child';
import type { FollowReport, FollowerReady } from './follower-process';

/** A follower process. */
export interface Followers {
  pid: number;
  /** Follow every run until it ends (started with the runs; resolves when all have ended). */
  follow(workflowIds: string[]): Promise<FollowReport>;
  close(): Promise<void>;
}

/** Forks the follower process and waits until it is connected. */
export async function startFollowers(address: string, namespace: string): Promise<Followers> {
  const child = await forkChild<FollowerReady>(path.join(__dirname, 'follower-process.ts'), [address, namespace], 'follower process');
  return {
    pid: child.ready.pid,
    follow: (workflowIds) => child.request<FollowReport>({ op: 'follow', workflowIds }),
    close: () => child.close(),
  };
}
