/**
 * Why a connection failed (src/connection/diagnose.ts): after a failure troupe looks at the address
 * itself, with the same CA, server name and client certificate as the SDK, and says in one line
 * what to check. Local servers stand in for Temporal here; the test CA is made in the test.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import {
  clientConnectionOptions,
  CONNECTION_TEXTS,
  ConnectionFailedError,
  explainProblem,
  hostAndPort,
  loadConnectionSettings,
  probe,
  withDiagnosis,
  workerConnectionOptions,
  type ConnectionSettings,
} from '../../../src/connection';
import { makeTestPki, startHeaderRecorder, type TestPki } from '../../helpers/tls';
import { installQuietRuntime } from '../../helpers/temporal';

let pki: TestPki;
let otherPki: TestPki;
const servers: net.Server[] = [];

beforeAll(() => {
  pki = makeTestPki();
  otherPki = makeTestPki('another CA');
});
const sockets = new Set<net.Socket>();
afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const s of servers) await new Promise((r) => s.close(r));
});

async function listen(server: net.Server): Promise<string> {
  servers.push(server);
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('error', () => undefined).on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

const tlsServer = (opts: tls.TlsOptions = {}) => {
  const server = tls.createServer({ key: pki.serverKey, cert: pki.serverCert, ALPNProtocols: ['h2'], ...opts }, () => undefined);
  server.on('tlsClientError', () => undefined);
  return listen(server);
};

/** A server that answers anything with bytes that are not TLS, as a plain gRPC server would. */
const plainServer = () => listen(net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n')));

const ca = (p: TestPki) => new Uint8Array(Buffer.from(p.caCert));
const settings = (address: string, tlsOption: ConnectionSettings['tls']): ConnectionSettings => ({ address, namespace: 'default', tls: tlsOption });

describe('probe', () => {
  test('nothing listening', async () => {
    const address = await listen(net.createServer());
    await new Promise((r) => servers.pop()!.close(r));
    expect(await probe(settings(address, false))).toEqual({ kind: 'refused' });
  });

  test('a certificate from a CA the client does not trust, with or without a CA of its own', async () => {
    const address = await tlsServer();
    expect(await probe(settings(address, true))).toEqual({ kind: 'untrusted', detail: 'unable to verify the first certificate' });
    expect(await probe(settings(address, { serverRootCACertificate: ca(otherPki) }))).toMatchObject({ kind: 'untrusted' });
    expect(await probe(settings(address, { serverRootCACertificate: ca(pki) }))).toBeUndefined();
  });

  test('a certificate for another name', async () => {
    const address = await tlsServer();
    expect(await probe(settings(address, { serverRootCACertificate: ca(pki), serverNameOverride: 'wrong.example' }))).toMatchObject({
      kind: 'wrong_name',
    });
    expect(await probe(settings(address, { serverRootCACertificate: ca(pki), serverNameOverride: 'localhost' }))).toBeUndefined();
  });

  test('a server that wants a client certificate', async () => {
    const address = await tlsServer({ requestCert: true, rejectUnauthorized: true, ca: [pki.caCert] });
    expect(await probe(settings(address, { serverRootCACertificate: ca(pki) }))).toEqual({ kind: 'client_cert_required' });
    const pair = (p: TestPki) => ({ crt: new Uint8Array(Buffer.from(p.clientCert)), key: new Uint8Array(Buffer.from(p.clientKey)) });
    expect(await probe(settings(address, { serverRootCACertificate: ca(pki), clientCertPair: pair(otherPki) }))).toMatchObject({
      kind: 'client_cert_rejected',
    });
    expect(await probe(settings(address, { serverRootCACertificate: ca(pki), clientCertPair: pair(pki) }))).toBeUndefined();
  });

  test('TLS to a plain server, and plain to a TLS server', async () => {
    expect(await probe(settings(await plainServer(), true))).toEqual({ kind: 'not_tls' });
    expect(await probe(settings(await tlsServer(), false))).toEqual({ kind: 'expects_tls' });
  });
});

describe('explainProblem', () => {
  const fromEnv: ConnectionSettings = {
    address: 'ns.acct.tmprl.cloud:7233',
    namespace: 'ns.acct',
    tls: true,
    apiKey: 'k',
    origin: { address: 'TEMPORAL_ADDRESS', apiKey: 'TEMPORAL_API_KEY', namespace: 'TEMPORAL_NAMESPACE', tls: CONNECTION_TEXTS.fromApiKey },
  };
  const plain: ConnectionSettings = { address: 'localhost:7233', namespace: 'default', tls: false, origin: {} };

  test('names the variable that gave the setting, or how to give it', () => {
    expect(explainProblem(plain, { kind: 'refused' })).toBe(
      'cannot reach Temporal at localhost:7233: nothing is listening there — check TEMPORAL_ADDRESS (or address in the profile file), or start a local server with `troupe dev` or `temporal server start-dev`',
    );
    expect(explainProblem(fromEnv, { kind: 'unresolved' })).toBe('cannot reach Temporal at ns.acct.tmprl.cloud:7233 over TLS: no such host — check TEMPORAL_ADDRESS');
    expect(explainProblem(fromEnv, { kind: 'untrusted', detail: 'self-signed certificate' })).toBe(
      "cannot reach Temporal at ns.acct.tmprl.cloud:7233 over TLS: the server's certificate is not signed by a CA this client trusts (self-signed certificate) — set TEMPORAL_TLS_SERVER_CA_CERT_PATH (or tls.server_ca_cert_path in the profile file) to the CA that signed it",
    );
    expect(explainProblem(fromEnv, { kind: 'unauthenticated', detail: 'UNAUTHENTICATED: Request unauthorized.' })).toBe(
      'cannot reach Temporal at ns.acct.tmprl.cloud:7233 over TLS: the server rejected the credentials (UNAUTHENTICATED: Request unauthorized.) — check TEMPORAL_API_KEY',
    );
    expect(explainProblem(fromEnv, { kind: 'permission_denied', detail: 'PERMISSION_DENIED: x' })).toBe(
      'cannot reach Temporal at ns.acct.tmprl.cloud:7233 over TLS: the server refused the call (PERMISSION_DENIED: x) — check TEMPORAL_API_KEY and TEMPORAL_NAMESPACE',
    );
    expect(explainProblem(fromEnv, { kind: 'not_tls' })).toBe(
      'cannot reach Temporal at ns.acct.tmprl.cloud:7233 over TLS: the server does not speak TLS — TLS is on because of TEMPORAL_API_KEY or api_key (an API key turns TLS on): set TEMPORAL_TLS=false (or tls.disabled = true in the profile file) if the server is plain',
    );
    expect(explainProblem(plain, { kind: 'expects_tls' })).toBe(
      'cannot reach Temporal at localhost:7233: the server expects TLS — set TEMPORAL_TLS=true, or TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA (or a [profile.<name>.tls] table in the profile file)',
    );
  });

  test('a setting from a profile is named by its key, profile and file', () => {
    const s: ConnectionSettings = {
      ...plain,
      tls: { serverNameOverride: 'x' },
      origin: { serverName: CONNECTION_TEXTS.inProfile('tls.server_name', 'prod', '/etc/temporal.toml') },
    };
    expect(explainProblem(s, { kind: 'wrong_name', detail: 'Host: x. is not in the cert\'s altnames' })).toBe(
      "cannot reach Temporal at localhost:7233 over TLS: the server's certificate is for another name (Host: x. is not in the cert's altnames) — check tls.server_name of profile \"prod\" in /etc/temporal.toml",
    );
  });

  test('hostAndPort reads host:port, [v6]:port and a bare host', () => {
    expect(hostAndPort('a.b:7000')).toEqual({ host: 'a.b', port: 7000 });
    expect(hostAndPort('[::1]:7233')).toEqual({ host: '::1', port: 7233 });
    expect(hostAndPort('temporal')).toEqual({ host: 'temporal', port: 7233 });
  });
});

describe('an API key', () => {
  test('reaches the server as "authorization: Bearer <key>" from both connections, and a rejected one is explained', async () => {
    installQuietRuntime();
    const recorder = await startHeaderRecorder(pki);
    try {
      const s = loadConnectionSettings({ TEMPORAL_ADDRESS: recorder.address, TEMPORAL_API_KEY: 'secret-key', TEMPORAL_TLS_SERVER_CA_CERT_DATA: pki.caCert });
      const expected = `cannot reach Temporal at ${recorder.address} over TLS: the server rejected the credentials (UNAUTHENTICATED: Request unauthorized.) — check TEMPORAL_API_KEY`;
      const connections: Array<() => Promise<unknown>> = [
        () => Connection.connect(clientConnectionOptions(s)),
        () => NativeConnection.connect(workerConnectionOptions(s)),
      ];
      for (const connect of connections) {
        const before = recorder.requests.length;
        const failure = await withDiagnosis(s, connect).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(failure).toBeInstanceOf(ConnectionFailedError);
        expect((failure as Error).message).toBe(expected);
        expect(recorder.requests.length).toBeGreaterThan(before);
        expect(recorder.requests.slice(before).map((h) => h.authorization)).toEqual(recorder.requests.slice(before).map(() => 'Bearer secret-key'));
      }
    } finally {
      await recorder.close();
    }
  });
});
