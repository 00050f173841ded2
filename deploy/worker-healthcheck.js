#!/usr/bin/env node
// The troupe worker container's health check (docker-compose.yml), and a Kubernetes readiness or
// liveness probe (docs/deploying.md, "On Kubernetes"): healthy while a worker of this host polls its
// task queue, as Temporal sees it (DescribeTaskQueue lists recent pollers; the SDK's default worker
// identity is `<pid>@<hostname>`). Exit 0 healthy, 1 not.
// The server lists a poller for 5 minutes after its last poll (matching.PollerHistoryTTL), so a worker
// that died or stopped polling would look healthy for that long: a poller counts only when it polled
// within TROUPE_HEALTH_MAX_POLL_AGE_SECONDS (default 120; an idle worker polls again at least every
// minute, when its long poll expires).
const os = require('node:os');
const { Connection } = require('@temporalio/client');

const address = process.env.TEMPORAL_ADDRESS || 'localhost:7233';
const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
const taskQueue = process.env.TROUPE_TASK_QUEUE || 'troupe';
const WORKFLOW_TASK_QUEUE = 1;
const maxAgeSeconds = Number(process.env.TROUPE_HEALTH_MAX_POLL_AGE_SECONDS || 120);

async function main() {
  const connection = await Connection.connect({ address, connectTimeout: '5s' });
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: WORKFLOW_TASK_QUEUE,
    });
    const suffix = `@${os.hostname()}`;
    const since = Date.now() / 1000 - maxAgeSeconds;
    const polledAt = (p) => (p.lastAccessTime ? Number(p.lastAccessTime.seconds) + (p.lastAccessTime.nanos || 0) / 1e9 : 0);
    return (pollers ?? []).some((p) => (p.identity ?? '').endsWith(suffix) && polledAt(p) >= since);
  } finally {
    await connection.close();
  }
}

main().then(
  (polling) => {
    if (!polling) console.error(`no worker of ${os.hostname()} polled task queue "${taskQueue}" on ${address} in the last ${maxAgeSeconds} s`);
    process.exit(polling ? 0 : 1);
  },
  (err) => {
    console.error(`cannot reach Temporal at ${address}: ${err && err.message ? err.message : err}`);
    process.exit(1);
  },
);
