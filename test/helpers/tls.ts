/**
 * TLS in front of the test server: a throwaway certificate authority made in the test (node-forge,
 * no `openssl` binary), a TLS-terminating proxy that pipes to the dev server's plain gRPC port the
 * way a load balancer in front of a secured cluster would, and a TLS gRPC endpoint that records the
 * request headers a client sends (to see an API key arrive) and answers "unauthenticated".
 */
import * as fs from 'node:fs';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import forge from 'node-forge';

/** PEM texts of a certificate authority and the certificates it signed, and their files on disk. */
export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The same PEM texts written to `dir`. */
  files: { caCert: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };
}

let serial = 1;

function certificate(opts: {
  subject: string;
  keys: forge.pki.rsa.KeyPair;
  issuer?: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey };
  extensions: object[];
}): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = opts.keys.publicKey;
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  const subject = [{ name: 'commonName', value: opts.subject }];
  cert.setSubject(subject);
  cert.setIssuer(opts.issuer ? opts.issuer.cert.subject.attributes : subject);
  cert.setExtensions(opts.extensions);
  cert.sign(opts.issuer?.key ?? opts.keys.privateKey, forge.md.sha256.create());
  return cert;
}

/**
 * A certificate authority, a server certificate for 127.0.0.1 and localhost and a client
 * certificate, all signed by it, written to a fresh temporary folder.
 */
export function makeTestPki(caName = 'troupe test CA'): TestPki {
  // forge uses Node's native key generation when it is available, so this is quick
  const caKeys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const ca = certificate({
    subject: caName,
    keys: caKeys,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const issuer = { cert: ca, key: caKeys.privateKey };
  const serverKeys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const server = certificate({
    subject: 'localhost',
    keys: serverKeys,
    issuer,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const clientKeys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const client = certificate({
    subject: 'troupe-worker',
    keys: clientKeys,
    issuer,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  const pem = {
    caCert: forge.pki.certificateToPem(ca),
    serverCert: forge.pki.certificateToPem(server),
    serverKey: forge.pki.privateKeyToPem(serverKeys.privateKey),
    clientCert: forge.pki.certificateToPem(client),
    // PKCS#8, the form both the Rust core and Node read
    clientKey: forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(clientKeys.privateKey))),
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-pki-'));
  const files = {} as TestPki['files'];
  for (const [name, text] of Object.entries(pem) as Array<[keyof TestPki['files'], string]>) {
    files[name] = path.join(dir, `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.pem`);
    fs.writeFileSync(files[name], text);
  }
  return { dir, ...pem, files };
}

/** A listening test endpoint; `close()` also ends its open connections. */
export interface TestEndpoint {
  /** `127.0.0.1:port` */
  address: string;
  close(): Promise<void>;
}

/**
 * A TLS-terminating proxy to `target` (`host:port`), advertising ALPN `h2` as a gRPC endpoint must.
 * With `requireClientCert`, the handshake fails unless the client presents a certificate signed by
 * the test CA (mTLS).
 */
export async function startTlsProxy(pki: TestPki, target: string, opts: { requireClientCert?: boolean } = {}): Promise<TestEndpoint> {
  const [host, port] = splitAddress(target);
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(
    {
      key: pki.serverKey,
      cert: pki.serverCert,
      ALPNProtocols: ['h2'],
      ...(opts.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: [pki.caCert] } : {}),
    },
    (client) => {
      const upstream = net.connect(port, host);
      sockets.add(client).add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream).pipe(client);
    },
  );
  // a handshake a client abandons (no CA, no client certificate) is expected here
  server.on('tlsClientError', () => undefined);
  return listen(server, () => {
    for (const s of sockets) s.destroy();
  });
}

/** What {@link startHeaderRecorder} saw: the headers of every gRPC request, in order. */
export interface HeaderRecorder extends TestEndpoint {
  requests: http2.IncomingHttpHeaders[];
}

/**
 * A TLS gRPC endpoint that records each request's headers and answers every call with
 * UNAUTHENTICATED (gRPC status 16), as Temporal Cloud answers a wrong API key.
 */
export async function startHeaderRecorder(pki: TestPki): Promise<HeaderRecorder> {
  const requests: http2.IncomingHttpHeaders[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createSecureServer({ key: pki.serverKey, cert: pki.serverCert, ALPNProtocols: ['h2'] });
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('stream', (stream, headers) => {
    requests.push(headers);
    stream.on('error', () => undefined);
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'Request unauthorized.' },
      { endStream: true },
    );
  });
  server.on('tlsClientError', () => undefined);
  const endpoint = await listen(server, () => {
    for (const s of sessions) s.destroy();
  });
  return { ...endpoint, requests };
}

function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i), Number(address.slice(i + 1))];
}

async function listen(server: net.Server, dropConnections: () => void): Promise<TestEndpoint> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}
