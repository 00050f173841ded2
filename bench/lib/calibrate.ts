/**
 * Machine calibration measured in the same run, so numbers from this box can be scaled to another:
 * a raw TCP ping-pong between two processes (scheduler wake-up cost), a trivial Temporal RPC
 * (`GetSystemInfo`: round trip, server CPU and client CPU per call) and a fixed JS spin.
 */
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import type { Client } from '@temporalio/client';
import { cpuMs } from './proc';
import { median, percentile, round } from './stats';

const ECHO_SERVER = `
const net = require('node:net');
const srv = net.createServer((s) => { s.setNoDelay(true); s.on('data', (d) => s.write(d)); });
srv.listen(0, '127.0.0.1', () => process.stdout.write(String(srv.address().port) + '\\n'));
`;

/** Round-trip p50/p95 (ms) of 1-byte TCP messages to an echo server in another process. */
export async function tcpPingPong(count = 2000): Promise<{ p50: number; p95: number }> {
  const child = spawn(process.execPath, ['-e', ECHO_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      child.once('exit', (code) => reject(new Error(`echo server exited with ${code}`)));
    });
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const times: number[] = [];
    await new Promise<void>((resolve) => {
      let t0 = performance.now();
      socket.on('data', () => {
        times.push(performance.now() - t0);
        if (times.length >= count) return resolve();
        t0 = performance.now();
        socket.write('x');
      });
      socket.write('x');
    });
    socket.destroy();
    return { p50: round(percentile(times, 50), 3), p95: round(percentile(times, 95), 3) };
  } finally {
    child.kill();
  }
}

/** Round trip and CPU per call of the cheapest frontend RPC, `GetSystemInfo`. */
export async function trivialRpc(client: Client, serverPid: number, count = 300) {
  const times: number[] = [];
  const s0 = cpuMs(serverPid);
  const c0 = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await client.workflowService.getSystemInfo({});
    times.push(performance.now() - t0);
  }
  const c = process.cpuUsage(c0);
  const s1 = cpuMs(serverPid);
  return {
    p50: round(median(times), 3),
    p95: round(percentile(times, 95), 3),
    serverCpuMs: s0 === undefined || s1 === undefined ? undefined : round((s1 - s0) / count, 3),
    clientCpuMs: round((c.user + c.system) / 1000 / count, 3),
  };
}
