/**
 * What troupe says about reaching Temporal: where each setting is given, what is wrong with the
 * settings, and why a connection failed with the one variable or profile setting to check. Every
 * message is one line, so the CLI prints it as is.
 */

/** A connection setting, as the errors name it. */
export type SettingKey = 'address' | 'namespace' | 'apiKey' | 'tls' | 'serverCa' | 'clientCert' | 'clientKey' | 'serverName';

/**
 * Where each setting is given: its `TEMPORAL_*` variable (the `_PATH` one for files) and its key in
 * a profile of the profile file, as the Temporal CLI and SDKs name them.
 */
export const SETTING_NAMES: Readonly<Record<SettingKey, { env: string; data?: string; profile: string; profileData?: string }>> = {
  address: { env: 'TEMPORAL_ADDRESS', profile: 'address' },
  namespace: { env: 'TEMPORAL_NAMESPACE', profile: 'namespace' },
  apiKey: { env: 'TEMPORAL_API_KEY', profile: 'api_key' },
  tls: { env: 'TEMPORAL_TLS', profile: 'tls.disabled' },
  serverCa: {
    env: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    data: 'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
    profile: 'tls.server_ca_cert_path',
    profileData: 'tls.server_ca_cert_data',
  },
  clientCert: {
    env: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
    data: 'TEMPORAL_TLS_CLIENT_CERT_DATA',
    profile: 'tls.client_cert_path',
    profileData: 'tls.client_cert_data',
  },
  clientKey: {
    env: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
    data: 'TEMPORAL_TLS_CLIENT_KEY_DATA',
    profile: 'tls.client_key_path',
    profileData: 'tls.client_key_data',
  },
  serverName: { env: 'TEMPORAL_TLS_SERVER_NAME', profile: 'tls.server_name' },
};

/** What each file setting holds, in words. */
const FILE_WORDS: Partial<Record<SettingKey, string>> = {
  serverCa: 'server CA certificate',
  clientCert: 'client certificate',
  clientKey: 'client key',
};

/** The user-visible texts of connecting to Temporal (tests pin them). */
export const CONNECTION_TEXTS = {
  // where a value came from
  inProfile: (key: string, profile: string, file: string) => `${key} of profile "${profile}" in ${file}`,
  inCode: (option: string) => `the ${option} option passed in code`,
  fromApiKey: 'TEMPORAL_API_KEY or api_key (an API key turns TLS on)',
  /** How to give a setting that is not given yet. */
  toSet: (key: SettingKey) => `${SETTING_NAMES[key].env} (or ${SETTING_NAMES[key].profile} in the profile file)`,

  // the settings themselves are wrong
  unknownProfile: (name: string, file: string, profiles: string[] | undefined) =>
    `TEMPORAL_PROFILE=${name}: there is no profile "${name}" in ${file}` +
    (profiles === undefined
      ? ' (the file does not exist; TEMPORAL_CONFIG_FILE names another)'
      : ` (its profiles: ${profiles.length ? profiles.join(', ') : 'none'})`),
  invalidConfigFile: (file: string, from: string, detail: string) => `the Temporal profile file ${file} (${from}) is not valid TOML: ${detail}`,
  unreadableConfigFile: (file: string, from: string, detail: string) => `cannot read the Temporal profile file ${file} (${from}): ${detail}`,
  unreadable: (key: SettingKey, where: string, file: string, reason: string) =>
    `cannot read the ${FILE_WORDS[key] ?? key} ${file} named by ${where}: ${reason}`,
  pathAndData: (key: SettingKey) => {
    const n = SETTING_NAMES[key];
    return `the ${FILE_WORDS[key] ?? key} is given both as a file and as data (${n.env} or ${n.profile}, and ${n.data} or ${n.profileData}): keep one`;
  },
  halfPair: (given: SettingKey, where: string, missing: SettingKey) =>
    `the ${FILE_WORDS[given]} is set (${where}) but the ${FILE_WORDS[missing]} is not: set ${SETTING_NAMES[missing].env} (or ${SETTING_NAMES[missing].profile} in the profile file) too`,
  notABoolean: (name: string, value: string) => `${name}=${value}: use true or false (or 1 or 0)`,
  hostVerification:
    "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION is not supported by the Temporal TypeScript SDK that troupe uses: unset it, and set TEMPORAL_TLS_SERVER_NAME to a name in the server's certificate",

  // a connection failed: `cannot reach Temporal at <address>[ over TLS]: <what> — <check>`
  cannotConnect: (address: string, tls: boolean, what: string, check: string) =>
    `cannot reach Temporal at ${address}${tls ? ' over TLS' : ''}: ${what} — ${check}`,
  check: (where: string) => `check ${where}`,
  unresolved: 'no such host',
  refused: 'nothing is listening there',
  startLocal: (where: string) => `check ${where}, or start a local server with \`troupe dev\` or \`temporal server start-dev\``,
  noAnswer: (seconds: number) => `no answer within ${seconds} s`,
  untrusted: (detail: string) => `the server's certificate is not signed by a CA this client trusts (${detail})`,
  setCa: `set ${SETTING_NAMES.serverCa.env} (or ${SETTING_NAMES.serverCa.profile} in the profile file) to the CA that signed it`,
  wrongName: (detail: string) => `the server's certificate is for another name (${detail})`,
  setServerName: `set ${SETTING_NAMES.serverName.env} (or ${SETTING_NAMES.serverName.profile} in the profile file) to a name in the certificate`,
  clientCertRequired: 'the server asks for a client certificate',
  setClientCert: `set ${SETTING_NAMES.clientCert.env} and ${SETTING_NAMES.clientKey.env} (or ${SETTING_NAMES.clientCert.profile} and ${SETTING_NAMES.clientKey.profile} in the profile file)`,
  clientCertRejected: (detail: string) => `the server rejected the client certificate (${detail})`,
  closedAfterHandshake: 'the server hung up after the TLS handshake',
  notTls: 'the server does not speak TLS',
  turnTlsOff: (where: string) => `TLS is on because of ${where}: set TEMPORAL_TLS=false (or tls.disabled = true in the profile file) if the server is plain`,
  expectsTls: 'the server expects TLS',
  turnTlsOn: `set TEMPORAL_TLS=true, or ${SETTING_NAMES.serverCa.env} for a private CA (or a [profile.<name>.tls] table in the profile file)`,
  unauthenticated: (detail: string) => `the server rejected the credentials (${detail})`,
  permissionDenied: (detail: string) => `the server refused the call (${detail})`,
  other: (detail: string) => detail,
} as const;
