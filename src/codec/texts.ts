/**
 * User-visible texts of payload encryption and the codec server, kept in one place so tests pin
 * them. No text ever includes a key: only key ids, which are derived one-way from the keys.
 */

/** The environment variables that configure payload encryption (docs/encryption.md). */
export const CODEC_ENV = {
  /** The key that encrypts new payloads: 32 random bytes, base64. */
  key: 'TROUPE_PAYLOAD_KEY',
  /** Keys kept only to decrypt older payloads, comma-separated, base64. */
  oldKeys: 'TROUPE_PAYLOAD_OLD_KEYS',
  /** The bearer token `troupe codec-server` requires (instead of `--token`, which `ps` shows). */
  token: 'TROUPE_CODEC_TOKEN',
} as const;

/** Messages of the payload codec and the codec server. */
export const CODEC_TEXTS = {
  badKey: (variable: string, why: string) =>
    `${variable} must be 32 random bytes in base64 (e.g. \`openssl rand -base64 32\`): ${why}`,
  notBase64: 'it is not base64',
  wrongLength: (bytes: number) => `it decodes to ${bytes} bytes, not 32`,
  unknownKeyId: (keyId: string, known: string[]) =>
    `cannot decrypt a payload encrypted with key id ${keyId}: the known key ids are ${known.join(', ')}; ` +
    `set ${CODEC_ENV.key} or add to ${CODEC_ENV.oldKeys} the key whose id is ${keyId}`,
  noKeyForEncrypted: (keyId: string) =>
    `this payload is encrypted (key id ${keyId}) and ${CODEC_ENV.key} is not set: ` +
    `set it (and ${CODEC_ENV.oldKeys} for older keys) to the key whose id is ${keyId}`,
  noKeyId: 'an encrypted payload has no encryption-key-id in its metadata',
  unsupportedCipher: (cipher: string) => `an encrypted payload uses cipher ${cipher}, which troupe does not know`,
  tampered: (keyId: string) =>
    `a payload encrypted with key id ${keyId} failed its integrity check: it was altered, or it was not encrypted by troupe`,
  // codec server
  serverNeedsKey: `troupe codec-server needs ${CODEC_ENV.key} (and ${CODEC_ENV.oldKeys} for older payloads): without a key it has nothing to decode with`,
  badPort: (value: string) => `--port must be a port number (0-65535), not "${value}"`,
  badOrigin: (value: string) => `--origin must be a URL origin such as http://localhost:8080, not "${value}"`,
  openBindWithoutToken: (host: string) =>
    `the codec server will not listen on ${JSON.stringify(host)} without a token: whoever reaches it there could decrypt every payload. ` +
    `Set ${CODEC_ENV.token} (or --token) so that it requires Authorization: Bearer <token>, or listen on loopback only (--host 127.0.0.1)`,
  listening: (url: string, origins: string[], keyIds: string[], token: boolean) =>
    `troupe codec server at ${url} (POST /encode, /decode) for ${origins.join(', ')}; ` +
    `key ids ${keyIds.join(', ')}; ${token ? 'a bearer token is required' : 'no bearer token required'}; Ctrl+C to stop`,
  stopped: 'troupe codec server stopped',
  request: (method: string, path: string, status: number, count?: number) =>
    `${method} ${path} ${status}${count === undefined ? '' : ` (${count} payloads)`}`,
  // HTTP error bodies
  unauthorized: 'a bearer token is required (Authorization: Bearer <token>)',
  forbiddenOrigin: (origin: string) => `origin ${origin} is not allowed by this codec server (--origin)`,
  notFound: 'not found: POST /encode or /decode',
  methodNotAllowed: 'use POST',
  tooLarge: (limit: number) => `the request body is larger than ${limit} bytes`,
  badBody: (why: string) => `the body must be {"payloads":[{"metadata":{...},"data":"<base64>"}]}: ${why}`,
} as const;
