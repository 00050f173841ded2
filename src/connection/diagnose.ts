/**
 * Why a connection to Temporal failed, in one line with what to check. The SDK's own errors say
 * little (the client's is "Failed to connect before the deadline" whatever went wrong), so after a
 * failure troupe looks for itself: does the name resolve, does anything listen, does the TLS
 * handshake pass with the same CA, server name and client certificate. A rejected API key is read
 * from the SDK's error, the one place it shows.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { TLSConfig } from '@temporalio/client';
import type { ConnectionSettings } from './load';
import { CONNECTION_TEXTS } from './texts';

/** Why a connection failed. */
export type ConnectProblem =
  | { kind: 'unresolved' }
  | { kind: 'refused' }
  | { kind: 'no_answer'; seconds: number }
  | { kind: 'untrusted'; detail: string }
  | { kind: 'wrong_name'; detail: string }
  | { kind: 'client_cert_required' }
  | { kind: 'client_cert_rejected'; detail: string }
  | { kind: 'not_tls' }
  | { kind: 'expects_tls' }
  | { kind: 'unauthenticated'; detail: string }
  | { kind: 'permission_denied'; detail: string }
  | { kind: 'other'; detail: string };

/** A connection to Temporal failed; the message says why and what to check, in one line. */
export class ConnectionFailedError extends Error {
  override name = 'ConnectionFailedError';
  constructor(
    message: string,
    readonly problem: ConnectProblem,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** How long each look (name and port, TLS handshake) may take after a failure. */
const DIAGNOSIS_TIMEOUT_MS = 3_000;

/** Run `connect`; if it fails, throw a {@link ConnectionFailedError} that says why. */
export async function withDiagnosis<T>(settings: ConnectionSettings, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (e) {
    const problem = problemInError(e) ?? (await probe(settings)) ?? { kind: 'other', detail: errorText(e) };
    throw new ConnectionFailedError(explainProblem(settings, problem), problem, { cause: e });
  }
}

/** The one-line explanation of `problem`, naming the variable or profile setting to check. */
export function explainProblem(settings: ConnectionSettings, problem: ConnectProblem): string {
  const t = CONNECTION_TEXTS;
  const o = settings.origin ?? {};
  const where = (key: 'address' | 'apiKey' | 'namespace' | 'serverCa' | 'clientCert' | 'serverName') => o[key] ?? t.toSet(key);
  const say = (what: string, check: string) => t.cannotConnect(settings.address, settings.tls !== false, what, check);
  switch (problem.kind) {
    case 'unresolved':
      return say(t.unresolved, t.check(where('address')));
    case 'refused':
      return say(t.refused, t.startLocal(where('address')));
    case 'no_answer':
      return say(t.noAnswer(problem.seconds), t.check(where('address')));
    case 'untrusted':
      return say(t.untrusted(problem.detail), o.serverCa ? t.check(o.serverCa) : t.setCa);
    case 'wrong_name':
      return say(t.wrongName(problem.detail), o.serverName ? t.check(o.serverName) : t.setServerName);
    case 'client_cert_required':
      return say(t.clientCertRequired, t.setClientCert);
    case 'client_cert_rejected':
      return say(t.clientCertRejected(problem.detail), t.check(where('clientCert')));
    case 'not_tls':
      return say(t.notTls, t.turnTlsOff(o.tls ?? t.toSet('tls')));
    case 'expects_tls':
      return say(t.expectsTls, t.turnTlsOn);
    case 'unauthenticated':
      return say(t.unauthenticated(problem.detail), t.check(where('apiKey')));
    case 'permission_denied':
      return say(t.permissionDenied(problem.detail), t.check(`${where('apiKey')} and ${where('namespace')}`));
    case 'other':
      return say(t.other(problem.detail), t.check(where('address')));
    default: {
      const never: never = problem;
      return never;
    }
  }
}

/** A rejected API key or a refused call shows only in the SDK's error (gRPC status 16 or 7). */
function problemInError(e: unknown): ConnectProblem | undefined {
  const text = errorText(e);
  const full = `${text} ${errorText((e as { cause?: unknown })?.cause)}`;
  // the client's cause reads "16 UNAUTHENTICATED: <message>"; the worker's "code: '<description>', message: "<message>""
  const message = /message: "([^"]*)"/.exec(full)?.[1] ?? /\d+ [A-Z_]+: (.*)/.exec(full)?.[1] ?? text;
  if (/UNAUTHENTICATED|valid authentication credentials/.test(full)) return { kind: 'unauthenticated', detail: `UNAUTHENTICATED: ${message}` };
  if (/PERMISSION_DENIED|does not have permission/.test(full)) return { kind: 'permission_denied', detail: `PERMISSION_DENIED: ${message}` };
  return undefined;
}

/** Look at the address with the settings' TLS; undefined when everything answers as it should. */
export async function probe(settings: ConnectionSettings, timeoutMs = DIAGNOSIS_TIMEOUT_MS): Promise<ConnectProblem | undefined> {
  const { host, port } = hostAndPort(settings.address);
  const tcp = await tcpProblem(host, port, timeoutMs);
  if (tcp) return tcp;
  if (settings.tls === false) return (await speaksTls(host, port, timeoutMs)) ? { kind: 'expects_tls' } : undefined;
  return tlsProblem(host, port, settings.tls === true ? {} : settings.tls, timeoutMs);
}

/** `host:port`, `[v6]:port` or a bare host (port 7233, Temporal's). */
export function hostAndPort(address: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(address) ?? /^([^:]+)(?::(\d+))?$/.exec(address);
  if (!m) return { host: address, port: 7233 };
  return { host: m[1], port: m[2] ? Number(m[2]) : 7233 };
}

function tcpProblem(host: string, port: number, timeoutMs: number): Promise<ConnectProblem | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (p: ConnectProblem | undefined) => {
      socket.destroy();
      resolve(p);
    };
    socket.setTimeout(timeoutMs, () => done({ kind: 'no_answer', seconds: timeoutMs / 1000 }));
    socket.once('connect', () => done(undefined));
    socket.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.code === 'EAI_NONAME') done({ kind: 'unresolved' });
      else if (e.code === 'ECONNREFUSED') done({ kind: 'refused' });
      else done({ kind: 'other', detail: e.message });
    });
  });
}

/** Codes of Node's certificate checks that mean "not signed by a CA we trust". */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** A TLS handshake with the settings' CA, server name and client certificate, as the SDK would make it. */
function tlsProblem(host: string, port: number, config: TLSConfig, timeoutMs: number): Promise<ConnectProblem | undefined> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port,
      servername: config.serverNameOverride ?? (net.isIP(host) ? undefined : host),
      ...(config.serverRootCACertificate ? { ca: [Buffer.from(config.serverRootCACertificate)] } : {}),
      ...(config.clientCertPair ? { cert: Buffer.from(config.clientCertPair.crt), key: Buffer.from(config.clientCertPair.key) } : {}),
      ALPNProtocols: ['h2'],
    });
    let settled = false;
    let secured = false;
    const done = (p: ConnectProblem | undefined) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(p);
    };
    socket.setTimeout(timeoutMs, () => done({ kind: 'no_answer', seconds: timeoutMs / 1000 }));
    // a server that wants a client certificate says so just after the handshake (TLS 1.3): wait a moment for it
    socket.once('secureConnect', () => {
      secured = true;
      setTimeout(() => done(undefined), 500);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => done(tlsErrorProblem(e, secured)));
    // a server that checks client certificates after the handshake may just hang up
    socket.once('close', () =>
      done(
        config.clientCertPair
          ? { kind: 'client_cert_rejected', detail: CONNECTION_TEXTS.closedAfterHandshake }
          : { kind: 'other', detail: CONNECTION_TEXTS.closedAfterHandshake },
      ),
    );
  });
}

function tlsErrorProblem(e: NodeJS.ErrnoException, handshakeDone: boolean): ConnectProblem {
  const code = e.code ?? '';
  if (UNTRUSTED.has(code)) return { kind: 'untrusted', detail: e.message };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return { kind: 'wrong_name', detail: (e as { reason?: string }).reason ?? e.message };
  if (code.includes('CERTIFICATE_REQUIRED')) return { kind: 'client_cert_required' };
  if (/UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|DECRYPT_ERROR/.test(code)) return { kind: 'client_cert_rejected', detail: e.message };
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL|HTTP_REQUEST/.test(code) || /wrong version number|packet length too long/.test(e.message)) {
    return { kind: 'not_tls' };
  }
  // a plain gRPC server hangs up on a TLS greeting
  if (!handshakeDone && code === 'ECONNRESET') return { kind: 'not_tls' };
  return { kind: 'other', detail: e.message };
}

/** Whether the server completes a TLS handshake (trusting anything: only the protocol is asked). */
function speaksTls(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port,
      ...(net.isIP(host) ? {} : { servername: host }),
      rejectUnauthorized: false,
      ALPNProtocols: ['h2'],
    });
    const done = (yes: boolean) => {
      socket.destroy();
      resolve(yes);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The first line of an error's message (no stack), shortened. */
function errorText(e: unknown): string {
  if (e === undefined || e === null) return '';
  const message = e instanceof Error ? e.message : String(e);
  const line = message.split('\n')[0].trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
