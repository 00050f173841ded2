/**
 * Parent side of the B8 followers: forks {@link ./follower-process} (through tsx) connected to one
 * dev server, and asks it to follow a batch of runs to their ends. The child is killed with the
 * parent.
 */
import { fork } from 'node:child_process';
import * as path from 'node:path';
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
  const child = fork(path.join(__dirname, 'follower-process.ts'), [address, namespace], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  const ready = await new Promise<FollowerReady>((resolve, reject) => {
    child.once('message', (m) => resolve(m as FollowerReady));
    child.once('exit', (code) => reject(new Error(`follower process exited with ${code} before it was ready`)));
  });
  let seq = 0;
  const waiting = new Map<number, (r: FollowReport) => void>();
  child.on('message', (m: { id?: number; result?: FollowReport }) => {
    if (m.id === undefined || !m.result) return;
    waiting.get(m.id)?.(m.result);
    waiting.delete(m.id);
  });
  return {
    pid: ready.pid,
    follow: (workflowIds) =>
      new Promise<FollowReport>((resolve) => {
        const id = ++seq;
        waiting.set(id, resolve);
        child.send({ id, op: 'follow', workflowIds });
      }),
    async close() {
      process.removeListener('exit', killChild);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      const timer = setTimeout(killChild, 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
