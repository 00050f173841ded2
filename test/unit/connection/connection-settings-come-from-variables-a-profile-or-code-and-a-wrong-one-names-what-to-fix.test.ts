/**
 * The connection settings as the Temporal CLI and SDKs read them (src/connection): `TEMPORAL_*`
 * variables and a profile of the TOML profile file become the same options for the client's
 * `Connection` and the worker's `NativeConnection`; every wrong setting is one line naming the
 * variable or profile setting to fix.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  clientConnectionOptions,
  CONNECTION_TEXTS,
  ConnectionConfigError,
  defaultConfigFile,
  loadConnectionSettings,
  workerConnectionOptions,
} from '../../../src/connection';
import { resolveSettings, settingsFromEnv } from '../../../src/settings';
import { main } from '../../../src/cli/main';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-connection-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
};
const CA = file('ca.pem', 'CA PEM');
const CERT = file('client.pem', 'CLIENT CERT PEM');
const KEY = file('client.key', 'CLIENT KEY PEM');
const bytes = (text: string) => new Uint8Array(Buffer.from(text));
/** An environment with no home, so no default profile file is read. */
const env = (vars: Record<string, string> = {}) => ({ ...vars });

const PROFILES = file(
  'temporal.toml',
  `
[profile.default]
address = "127.0.0.1:1"

[profile.prod]
address = "prod.a1b2c.tmprl.cloud:7233"
namespace = "prod.a1b2c"
api_key = "key-from-profile"

[profile.selfhosted]
address = "temporal.internal:7233"
namespace = "agents"
[profile.selfhosted.tls]
server_ca_cert_path = "${CA}"
client_cert_path = "${CERT}"
client_key_data = "INLINE KEY PEM"
server_name = "temporal.internal"
[profile.selfhosted.grpc_meta]
x-team = "research"
`,
);

describe('from TEMPORAL_* variables', () => {
  test('nothing set: plain gRPC to localhost:7233, namespace default', () => {
    expect(loadConnectionSettings(env())).toEqual({ address: 'localhost:7233', namespace: 'default', tls: false, origin: {} });
  });

  test('empty variables count as unset', () => {
    expect(loadConnectionSettings(env({ TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: '', TEMPORAL_API_KEY: '' }))).toMatchObject({
      address: 'localhost:7233',
      namespace: 'default',
      tls: false,
    });
  });

  test('Temporal Cloud with an API key: TLS turns on, the key goes to both connections', () => {
    const s = loadConnectionSettings(
      env({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'ns.acct', TEMPORAL_API_KEY: 'secret' }),
    );
    expect(s).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', namespace: 'ns.acct', apiKey: 'secret', tls: true });
    expect(s.origin).toMatchObject({ address: 'TEMPORAL_ADDRESS', apiKey: 'TEMPORAL_API_KEY', tls: CONNECTION_TEXTS.fromApiKey });
    const expected = { address: 'ns.acct.tmprl.cloud:7233', tls: true, apiKey: 'secret' };
    expect(clientConnectionOptions(s)).toEqual(expected);
    expect(workerConnectionOptions(s)).toEqual(expected);
  });

  test('mTLS: the CA, the client certificate and key are read from their files; the server name is kept', () => {
    const s = loadConnectionSettings(
      env({
        TEMPORAL_ADDRESS: '10.0.0.5:7233',
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: CA,
        TEMPORAL_TLS_CLIENT_CERT_PATH: CERT,
        TEMPORAL_TLS_CLIENT_KEY_PATH: KEY,
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
        TEMPORAL_GRPC_META_X_TEAM: 'research',
      }),
    );
    const tls = { serverNameOverride: 'temporal.internal', serverRootCACertificate: bytes('CA PEM'), clientCertPair: { crt: bytes('CLIENT CERT PEM'), key: bytes('CLIENT KEY PEM') } };
    expect(s).toMatchObject({ address: '10.0.0.5:7233', tls, metadata: { 'x-team': 'research' } });
    expect(s.apiKey).toBeUndefined();
    expect(s.origin).toMatchObject({
      serverCa: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      clientCert: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
      clientKey: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
      serverName: 'TEMPORAL_TLS_SERVER_NAME',
      tls: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
    });
    const options = { address: '10.0.0.5:7233', tls, metadata: { 'x-team': 'research' } };
    expect(clientConnectionOptions(s)).toEqual(options);
    expect(workerConnectionOptions(s)).toEqual(options);
  });

  test('certificates may be given inline (_DATA)', () => {
    const s = loadConnectionSettings(env({ TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'INLINE CA' }));
    expect(s.tls).toEqual({ serverRootCACertificate: bytes('INLINE CA') });
    expect(s.origin?.serverCa).toBe('TEMPORAL_TLS_SERVER_CA_CERT_DATA');
  });

  test('TEMPORAL_TLS switches TLS on (system CAs) or off (even with an API key), in any case', () => {
    expect(loadConnectionSettings(env({ TEMPORAL_TLS: 'TRUE' })).tls).toBe(true);
    expect(loadConnectionSettings(env({ TEMPORAL_TLS: '1' })).tls).toBe(true);
    expect(loadConnectionSettings(env({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }))).toMatchObject({ tls: false, apiKey: 'k' });
  });
});

describe('from a profile of the profile file', () => {
  test('TEMPORAL_CONFIG_FILE + TEMPORAL_PROFILE pick a profile; its settings say where they came from', () => {
    const s = loadConnectionSettings(env({ TEMPORAL_CONFIG_FILE: PROFILES, TEMPORAL_PROFILE: 'selfhosted' }));
    expect(s).toMatchObject({
      address: 'temporal.internal:7233',
      namespace: 'agents',
      tls: { serverNameOverride: 'temporal.internal', serverRootCACertificate: bytes('CA PEM'), clientCertPair: { crt: bytes('CLIENT CERT PEM'), key: bytes('INLINE KEY PEM') } },
      metadata: { 'x-team': 'research' },
    });
    const inProfile = (key: string) => CONNECTION_TEXTS.inProfile(key, 'selfhosted', PROFILES);
    expect(s.origin).toEqual({
      profile: { name: 'selfhosted', file: PROFILES },
      address: inProfile('address'),
      namespace: inProfile('namespace'),
      serverName: inProfile('tls.server_name'),
      serverCa: inProfile('tls.server_ca_cert_path'),
      clientCert: inProfile('tls.client_cert_path'),
      clientKey: inProfile('tls.client_key_data'),
      tls: inProfile('tls'),
    });
  });

  test('an API key in a profile turns TLS on and reaches both connections', () => {
    const s = loadConnectionSettings(env({ TEMPORAL_CONFIG_FILE: PROFILES, TEMPORAL_PROFILE: 'prod' }));
    expect(clientConnectionOptions(s)).toEqual({ address: 'prod.a1b2c.tmprl.cloud:7233', tls: true, apiKey: 'key-from-profile' });
    expect(workerConnectionOptions(s)).toEqual({ address: 'prod.a1b2c.tmprl.cloud:7233', tls: true, apiKey: 'key-from-profile' });
    expect(s.namespace).toBe('prod.a1b2c');
  });

  test('variables win over the profile', () => {
    const s = loadConnectionSettings(env({ TEMPORAL_CONFIG_FILE: PROFILES, TEMPORAL_PROFILE: 'prod', TEMPORAL_API_KEY: 'key-from-env', TEMPORAL_NAMESPACE: 'other' }));
    expect(s).toMatchObject({ address: 'prod.a1b2c.tmprl.cloud:7233', namespace: 'other', apiKey: 'key-from-env' });
    expect(s.origin).toMatchObject({ apiKey: 'TEMPORAL_API_KEY', namespace: 'TEMPORAL_NAMESPACE', address: CONNECTION_TEXTS.inProfile('address', 'prod', PROFILES) });
  });

  test('without TEMPORAL_PROFILE the "default" profile is read; without TEMPORAL_CONFIG_FILE the default location', () => {
    expect(loadConnectionSettings(env({ TEMPORAL_CONFIG_FILE: PROFILES })).address).toBe('127.0.0.1:1');
    const home = fs.mkdtempSync(path.join(dir, 'home-'));
    fs.mkdirSync(path.join(home, '.config', 'temporalio'), { recursive: true });
    fs.copyFileSync(PROFILES, path.join(home, '.config', 'temporalio', 'temporal.toml'));
    expect(loadConnectionSettings(env({ HOME: home, TEMPORAL_PROFILE: 'prod' })).apiKey).toBe('key-from-profile');
  });

  test('the default location is the one the SDKs and the CLI share', () => {
    expect(defaultConfigFile({ HOME: '/home/u' }, 'linux')).toBe('/home/u/.config/temporalio/temporal.toml');
    expect(defaultConfigFile({ HOME: '/home/u', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg/temporalio/temporal.toml');
    expect(defaultConfigFile({ HOME: '/Users/u' }, 'darwin')).toBe('/Users/u/Library/Application Support/temporalio/temporal.toml');
    expect(defaultConfigFile({}, 'linux')).toBeUndefined();
  });
});

describe('wrong settings are one line naming what to fix', () => {
  const error = (vars: Record<string, string>) => {
    try {
      loadConnectionSettings(env(vars));
    } catch (e) {
      expect(e).toBeInstanceOf(ConnectionConfigError);
      expect((e as Error).message).not.toContain('\n');
      return (e as Error).message;
    }
    throw new Error('no error');
  };

  test('an unknown profile lists the profiles there are, or says the file does not exist', () => {
    expect(error({ TEMPORAL_CONFIG_FILE: PROFILES, TEMPORAL_PROFILE: 'staging' })).toBe(
      CONNECTION_TEXTS.unknownProfile('staging', PROFILES, ['default', 'prod', 'selfhosted']),
    );
    expect(error({ TEMPORAL_CONFIG_FILE: path.join(dir, 'none.toml'), TEMPORAL_PROFILE: 'prod' })).toBe(
      `TEMPORAL_PROFILE=prod: there is no profile "prod" in ${path.join(dir, 'none.toml')} (the file does not exist; TEMPORAL_CONFIG_FILE names another)`,
    );
  });

  test('a missing certificate file names the variable or the profile setting', () => {
    expect(error({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nowhere/ca.pem' })).toBe(
      'cannot read the server CA certificate /nowhere/ca.pem named by TEMPORAL_TLS_SERVER_CA_CERT_PATH: no such file',
    );
    const profiles = file('missing-cert.toml', '[profile.x.tls]\nclient_cert_path = "/nowhere/c.pem"\nclient_key_path = "/nowhere/c.key"\n');
    expect(error({ TEMPORAL_CONFIG_FILE: profiles, TEMPORAL_PROFILE: 'x' })).toBe(
      `cannot read the client certificate /nowhere/c.pem named by tls.client_cert_path of profile "x" in ${profiles}: no such file`,
    );
  });

  test('a client certificate without its key', () => {
    expect(error({ TEMPORAL_TLS_CLIENT_CERT_PATH: CERT })).toBe(
      'the client certificate is set (TEMPORAL_TLS_CLIENT_CERT_PATH) but the client key is not: set TEMPORAL_TLS_CLIENT_KEY_PATH (or tls.client_key_path in the profile file) too',
    );
  });

  test('a file given both as a path and as data', () => {
    const profiles = file('both.toml', `[profile.default.tls]\nserver_ca_cert_data = "X"\n`);
    expect(error({ TEMPORAL_CONFIG_FILE: profiles, TEMPORAL_TLS_SERVER_CA_CERT_PATH: CA })).toBe(CONNECTION_TEXTS.pathAndData('serverCa'));
  });

  test('a profile file that is not TOML', () => {
    const broken = file('broken.toml', '[profile.default\naddress = 1\n');
    expect(error({ TEMPORAL_CONFIG_FILE: broken })).toBe(
      CONNECTION_TEXTS.invalidConfigFile(broken, 'TEMPORAL_CONFIG_FILE', 'illegal character in key (line 1, column 17)'),
    );
  });

  test('a switch that is not a boolean; host verification, which the TypeScript SDK cannot turn off', () => {
    expect(error({ TEMPORAL_TLS: 'yes' })).toBe('TEMPORAL_TLS=yes: use true or false (or 1 or 0)');
    expect(error({ TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' })).toBe(CONNECTION_TEXTS.hostVerification);
  });

  test('the CLI prints the line and exits 1 before connecting', async () => {
    let stderr = '';
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
    const saved = { file: process.env.TEMPORAL_CONFIG_FILE, profile: process.env.TEMPORAL_PROFILE };
    process.env.TEMPORAL_CONFIG_FILE = PROFILES;
    process.env.TEMPORAL_PROFILE = 'staging';
    try {
      expect(await main(['status', 'some-run'])).toBe(1);
      expect(await main(['worker'])).toBe(1);
    } finally {
      spy.mockRestore();
      for (const [key, value] of [['TEMPORAL_CONFIG_FILE', saved.file], ['TEMPORAL_PROFILE', saved.profile]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    const line = `${CONNECTION_TEXTS.unknownProfile('staging', PROFILES, ['default', 'prod', 'selfhosted'])}\n`;
    expect(stderr).toBe(line + line);
  });
});

describe('settings passed in code', () => {
  test('win over the environment, and their origin says so', () => {
    const s = resolveSettings({ env: { TEMPORAL_ADDRESS: 'a:1', TEMPORAL_API_KEY: 'k', TROUPE_TASK_QUEUE: 'q' }, address: 'b:2', namespace: undefined });
    expect(s).toMatchObject({ address: 'b:2', namespace: 'default', apiKey: 'k', tls: true, taskQueue: 'q' });
    expect(s.origin).toMatchObject({ address: CONNECTION_TEXTS.inCode('address'), apiKey: 'TEMPORAL_API_KEY' });
  });

  test('env: false reads no variable and no profile file (troupe dev)', () => {
    const saved = process.env.TEMPORAL_API_KEY;
    process.env.TEMPORAL_API_KEY = 'k';
    try {
      expect(resolveSettings({ env: false, address: '127.0.0.1:7299' })).toEqual({
        address: '127.0.0.1:7299',
        namespace: 'default',
        tls: false,
        taskQueue: 'troupe',
        origin: { address: CONNECTION_TEXTS.inCode('address') },
      });
    } finally {
      if (saved === undefined) delete process.env.TEMPORAL_API_KEY;
      else process.env.TEMPORAL_API_KEY = saved;
    }
  });

  test('settings read once and passed on keep their origin', () => {
    const read = settingsFromEnv({ TEMPORAL_ADDRESS: 'a:1' });
    expect(resolveSettings({ ...read, env: false }).origin).toEqual({ address: 'TEMPORAL_ADDRESS' });
  });
});
