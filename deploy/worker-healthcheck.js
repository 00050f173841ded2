#!/usr/bin/env node
// The troupe worker container's health check (docker-compose.yml): healthy while a worker of this
// host polls its task queue, as Temporal sees it (DescribeTaskQueue lists recent pollers; the SDK's
// default worker identity is `<pid>@<hostname>`). Exit 0 healthy, 1 not.
const os = require('node:os');
const { Connection } = require('@temporalio/client');

const address = process.env.TEMPORAL_ADDRESS || 'localhost:7233';
const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
const taskQueue = process.env.TROUPE_TASK_QUEUE || 'troupe';
const WORKFLOW_TASK_QUEUE = 1;

async function main() {
  const connection = await Connection.connect({ address, connectTimeout: '5s' });
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: WORKFLOW_TASK_QUEUE,
    });
    const suffix = `@${os.hostname()}`;
    return (pollers ?? []).some((p) => (p.identity ?? '').endsWith(suffix));
  } finally {
    await connection.close();
  }
}

main().then(
  (polling) => {
    if (!polling) console.error(`no worker of ${os.hostname()} polls task queue "${taskQueue}" on ${address}`);
    process.exit(polling ? 0 : 1);
  },
  (err) => {
    console.error(`cannot reach Temporal at ${address}: ${err && err.message ? err.message : err}`);
    process.exit(1);
  },
);
