/**
 * Reading the connection settings the way the Temporal CLI and SDKs do (`@temporalio/envconfig`):
 * a profile of the shared TOML profile file (`TEMPORAL_CONFIG_FILE`, default
 * `~/.config/temporalio/temporal.toml`; `TEMPORAL_PROFILE`, default `default`), then the
 * `TEMPORAL_*` variables over it. troupe adds what the SDK leaves to its callers: each setting
 * remembers where it came from, and every mistake (a missing file, an unknown profile, a
 * certificate without its key) is one line naming the variable or profile setting to fix.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TLSConfig } from '@temporalio/client';
import { loadClientConfig, loadClientConfigProfile, toClientOptions, type ClientConfigProfile, type ConfigDataSource } from '@temporalio/envconfig';
import { CONNECTION_TEXTS, SETTING_NAMES, type SettingKey } from './texts';

/** Where Temporal is and how to reach it: what the client's and the worker's connections are made from. */
export interface ConnectionSettings {
  /** `host:port` of the Temporal frontend. */
  address: string;
  namespace: string;
  /** Sent as `authorization: Bearer <key>` (Temporal Cloud); it turns TLS on unless TLS is disabled explicitly. */
  apiKey?: string;
  /**
   * `false`: plain gRPC; `true`: TLS trusting the system's CAs; an object: TLS with a private CA,
   * a client certificate (mTLS) or another server name. File contents are loaded already.
   */
  tls: boolean | TLSConfig;
  /** Extra gRPC headers (`TEMPORAL_GRPC_META_*`, a profile's `grpc_meta`). */
  metadata?: Record<string, string>;
  /** Where each setting came from, so an error can name what to check. */
  origin?: ConnectionOrigin;
}

/** Which variable, profile setting or code option gave each setting, in words. */
export interface ConnectionOrigin extends Partial<Record<SettingKey, string>> {
  /** The profile read from the profile file, when there was one. */
  profile?: { name: string; file: string };
}

/** Settings that are wrong before any connection is tried; the message is one line. */
export class ConnectionConfigError extends Error {
  override name = 'ConnectionConfigError';
}

/** A local server's settings: plain gRPC to `localhost:7233`, namespace `default`. */
export const DEFAULT_CONNECTION: Readonly<ConnectionSettings> = { address: 'localhost:7233', namespace: 'default', tls: false };

/**
 * Read the connection settings from the profile file and the `TEMPORAL_*` variables of `env`
 * (empty variables count as unset). Throws {@link ConnectionConfigError}.
 */
export function loadConnectionSettings(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const vars = connectionVariables(env);
  if (vars.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION === 'true') throw new ConnectionConfigError(CONNECTION_TEXTS.hostVerification);
  const fileFrom = vars.TEMPORAL_CONFIG_FILE ? 'TEMPORAL_CONFIG_FILE' : 'the default location';
  const file = vars.TEMPORAL_CONFIG_FILE ?? defaultConfigFile(vars) ?? '';
  const profileName = vars.TEMPORAL_PROFILE ?? 'default';
  const read = (disableEnv: boolean) =>
    fromSdk(file, fileFrom, profileName, () =>
      loadClientConfigProfile({ configSource: { path: file }, overrideEnvVars: vars, disableEnv }),
    );
  const inFile = read(true);
  const merged = read(false);
  const profileRead = fs.existsSync(file) && Object.keys(inFile).length > 0;
  const origin = originOf(vars, inFile, merged, profileRead ? { name: profileName, file } : undefined);
  checkFiles(merged, origin);
  const options = fromSdk(file, fileFrom, profileName, () => toClientOptions(merged));
  const { address, apiKey, tls, metadata } = options.connectionOptions;
  return {
    address: address || DEFAULT_CONNECTION.address,
    namespace: options.namespace || DEFAULT_CONNECTION.namespace,
    ...(apiKey ? { apiKey } : {}),
    tls: normalizeTls(tls),
    ...(metadata && Object.keys(metadata).length ? { metadata: metadata as Record<string, string> } : {}),
    origin,
  };
}

/**
 * `settings` with the values passed in code over them (undefined ones ignored); their origin says
 * they came from code, unless `given` brings its own origin (settings read elsewhere, passed on).
 */
export function withOverrides<T extends ConnectionSettings>(settings: T, given: Partial<T>): T {
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<T>;
  if (defined.origin) return { ...settings, ...defined };
  const origin: ConnectionOrigin = { ...settings.origin };
  for (const key of ['address', 'namespace', 'apiKey', 'tls'] as const) {
    if (key in defined) origin[key] = CONNECTION_TEXTS.inCode(key);
  }
  if ('tls' in defined) {
    for (const key of ['serverCa', 'clientCert', 'clientKey', 'serverName'] as const) origin[key] = CONNECTION_TEXTS.inCode('tls');
  }
  return { ...settings, ...defined, origin };
}

/**
 * The `TEMPORAL_*` variables as the SDK should see them: empty ones dropped (an empty
 * `TEMPORAL_GRPC_META_X` still removes that header, as the SDKs define), booleans checked and
 * spelled `true`/`false` (the Go SDK accepts any case; the TypeScript one only lower case).
 */
function connectionVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (value === '' && !name.startsWith('TEMPORAL_GRPC_META_')) continue;
    vars[name] = value;
  }
  for (const name of ['TEMPORAL_TLS', 'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION']) {
    const value = vars[name];
    if (value === undefined) continue;
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === '1') vars[name] = 'true';
    else if (lower === 'false' || lower === '0') vars[name] = 'false';
    else throw new ConnectionConfigError(CONNECTION_TEXTS.notABoolean(name, value));
  }
  return vars;
}

/**
 * The profile file's default location, as the SDKs and the CLI define it (Go's
 * `os.UserConfigDir()/temporalio/temporal.toml`); undefined when the variables give no home.
 */
export function defaultConfigFile(vars: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): string | undefined {
  let dir: string | undefined;
  if (platform === 'win32') dir = vars.APPDATA;
  else if (platform === 'darwin') dir = vars.HOME && path.join(vars.HOME, 'Library', 'Application Support');
  else if (vars.XDG_CONFIG_HOME) dir = path.isAbsolute(vars.XDG_CONFIG_HOME) ? vars.XDG_CONFIG_HOME : undefined;
  else dir = vars.HOME && path.join(vars.HOME, '.config');
  return dir ? path.join(dir, 'temporalio', 'temporal.toml') : undefined;
}

/** Run an envconfig call, turning its errors into one-line {@link ConnectionConfigError}s. */
function fromSdk<T>(file: string, fileFrom: string, profile: string, call: () => T): T {
  try {
    return call();
  } catch (e) {
    const error = e as Error & { code?: string; line?: number; column?: number };
    // smol-toml's TomlError (the parser envconfig uses) carries the line and column
    if (typeof error.line === 'number' && 'codeblock' in error) {
      const detail = `${firstLine(error.message).replace(/^Invalid TOML document: /, '')} (line ${error.line}, column ${error.column})`;
      throw new ConnectionConfigError(CONNECTION_TEXTS.invalidConfigFile(file, fileFrom, detail));
    }
    if (error.code) throw new ConnectionConfigError(CONNECTION_TEXTS.unreadableConfigFile(file, fileFrom, firstLine(error.message)));
    if (/^Profile '.*' not found/.test(error.message)) {
      const profiles = fs.existsSync(file) ? Object.keys(loadClientConfig({ configSource: { path: file } }).profiles) : undefined;
      throw new ConnectionConfigError(CONNECTION_TEXTS.unknownProfile(profile, file || '(no profile file)', profiles));
    }
    const both = /Cannot specify both (\w+)_path and \1_data/.exec(error.message);
    const key = both && FILE_KEYS.find((k) => SETTING_NAMES[k].profile === `tls.${both[1]}_path`);
    if (key) throw new ConnectionConfigError(CONNECTION_TEXTS.pathAndData(key));
    throw new ConnectionConfigError(firstLine(error.message));
  }
}

const FILE_KEYS = ['serverCa', 'clientCert', 'clientKey'] as const;
type FileKey = (typeof FILE_KEYS)[number];
const TLS_FIELD: Record<FileKey, 'serverCACert' | 'clientCert' | 'clientKey'> = {
  serverCa: 'serverCACert',
  clientCert: 'clientCert',
  clientKey: 'clientKey',
};

function originOf(
  vars: Record<string, string>,
  inFile: ClientConfigProfile,
  merged: ClientConfigProfile,
  profile: ConnectionOrigin['profile'],
): ConnectionOrigin {
  const origin: ConnectionOrigin = profile ? { profile } : {};
  const fromFile = (key: string) => CONNECTION_TEXTS.inProfile(key, profile?.name ?? '', profile?.file ?? '');
  const pick = (key: SettingKey, inProfile: unknown, dataInProfile = false) => {
    const names = SETTING_NAMES[key];
    if (vars[names.env] !== undefined) origin[key] = names.env;
    else if (names.data && vars[names.data] !== undefined) origin[key] = names.data;
    else if (inProfile !== undefined) origin[key] = fromFile(dataInProfile && names.profileData ? names.profileData : names.profile);
  };
  pick('address', inFile.address);
  pick('namespace', inFile.namespace);
  pick('apiKey', inFile.apiKey);
  pick('serverName', inFile.tls?.serverName);
  for (const key of FILE_KEYS) {
    const source = inFile.tls?.[TLS_FIELD[key]];
    pick(key, source, source !== undefined && !('path' in source));
  }
  // why TLS is on (or off): the switch itself, else the first TLS setting given, else an API key
  const tlsVar = Object.keys(vars)
    .sort()
    .find((name) => name.startsWith('TEMPORAL_TLS_'));
  if (vars.TEMPORAL_TLS !== undefined) origin.tls = 'TEMPORAL_TLS';
  else if (tlsVar) origin.tls = tlsVar;
  else if (inFile.tls !== undefined) origin.tls = fromFile('tls');
  else if (merged.apiKey !== undefined) origin.tls = CONNECTION_TEXTS.fromApiKey;
  return origin;
}

/** Every certificate or key file named must be readable, and a client certificate needs its key. */
function checkFiles(merged: ClientConfigProfile, origin: ConnectionOrigin): void {
  const tls = merged.tls;
  if (!tls || tls.disabled) return;
  for (const key of FILE_KEYS) {
    const source: ConfigDataSource | undefined = tls[TLS_FIELD[key]];
    if (!source || !('path' in source)) continue;
    try {
      fs.readFileSync(source.path);
    } catch (e) {
      throw new ConnectionConfigError(CONNECTION_TEXTS.unreadable(key, origin[key] ?? SETTING_NAMES[key].env, source.path, readError(e)));
    }
  }
  if (tls.clientCert && !tls.clientKey) throw new ConnectionConfigError(CONNECTION_TEXTS.halfPair('clientCert', origin.clientCert ?? '', 'clientKey'));
  if (tls.clientKey && !tls.clientCert) throw new ConnectionConfigError(CONNECTION_TEXTS.halfPair('clientKey', origin.clientKey ?? '', 'clientCert'));
}

function readError(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  return firstLine((e as Error).message);
}

/** `true` for TLS with nothing customised, so `tls: {}` and `TEMPORAL_TLS=true` read the same. */
function normalizeTls(tls: TLSConfig | boolean | null | undefined): boolean | TLSConfig {
  if (!tls) return false;
  if (tls === true) return true;
  const defined = Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined)) as TLSConfig;
  return Object.keys(defined).length ? defined : true;
}

function firstLine(text: string): string {
  return text.split('\n')[0].trim();
}
