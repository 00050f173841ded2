/**
 * Nothing in the compose stack authenticates: whoever reaches Temporal's frontend or its Web UI can
 * start, read and approve every run. So every port the stack publishes is bound to the host's
 * loopback, whatever the port variables say, and no service shares the host's network
 * (docs/deploying.md, "Reaching the stack from other machines").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** `${NAME:-default}` and `${NAME-default}` as their default, `${NAME}` and `$NAME` as empty: the stack as `up` starts it with no variables set. */
function withDefaults(text: string): string {
  return text.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}/g, (_, fallback: string | undefined) => fallback ?? '').replace(/\$[A-Za-z_][A-Za-z0-9_]*/g, '');
}

/** The host address a `ports` entry publishes on ('' for every interface), in its short or long form. */
function hostIp(entry: unknown): string {
  if (typeof entry === 'object' && entry !== null) return String((entry as { host_ip?: unknown }).host_ip ?? '');
  const spec = withDefaults(String(entry)).replace(/\/(tcp|udp)$/, '');
  const v6 = /^\[([^\]]*)\]:/.exec(spec);
  if (v6) return v6[1];
  const parts = spec.split(':');
  // HOST_IP:HOST_PORT:CONTAINER_PORT; HOST_PORT:CONTAINER_PORT and CONTAINER_PORT publish on every interface
  return parts.length === 3 ? parts[0] : '';
}

const isLoopback = (ip: string) => /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip) || ip === '::1';

/** Each published port of the compose file as `service: entry`, with the host address it binds. */
function publishedPorts(compose: { services: Record<string, { ports?: unknown[] }> }): Array<{ port: string; ip: string }> {
  return Object.entries(compose.services).flatMap(([name, s]) => (s.ports ?? []).map((p) => ({ port: `${name}: ${JSON.stringify(p)}`, ip: hostIp(p) })));
}

describe('the compose stack', () => {
  const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, { ports?: unknown[]; network_mode?: string }> };

  test('publishes every port on the host’s loopback only, Temporal’s frontend and its Web UI among them', () => {
    const ports = publishedPorts(compose);
    expect(ports.map((p) => p.port)).toEqual(expect.arrayContaining([expect.stringMatching(/^temporal: .*:7233"$/), expect.stringMatching(/^temporal-ui: .*:8080"$/)]));
    expect(ports.filter((p) => !isLoopback(p.ip))).toEqual([]);
  });

  test('no service shares the host’s network (which would publish every port it listens on)', () => {
    expect(Object.entries(compose.services).filter(([, s]) => s.network_mode === 'host').map(([name]) => name)).toEqual([]);
  });

  test('the check reads every form of a ports entry', () => {
    const of = (ports: unknown[]) => publishedPorts({ services: { s: { ports } } }).map((p) => p.ip);
    expect(of(['${TEMPORAL_PORT:-7233}:7233', '8080:8080', '9000', '127.0.0.1:${P:-1}:1', '[::1]:2:2/udp', '0.0.0.0:3:3'])).toEqual(['', '', '', '127.0.0.1', '::1', '0.0.0.0']);
    expect(of([{ target: 80, published: 8080 }, { target: 80, published: 8080, host_ip: '127.0.0.1' }])).toEqual(['', '127.0.0.1']);
    expect(['127.0.0.1', '127.1.2.3', '::1'].every(isLoopback)).toBe(true);
    expect(['', '0.0.0.0', '::', '10.0.0.1', 'localhost'].some(isLoopback)).toBe(false);
  });
});
