/**
 * Payload keys from the environment: the current key (encrypts), the old keys (decrypt only, so a
 * key can rotate while runs encrypted with the previous one are still read), and their key ids.
 * A key id is the first 8 bytes of the key's SHA-256 in hex: it names a key in payload metadata and
 * error messages without revealing it (`echo KEY | base64 -d | sha256sum | cut -c1-16`).
 */
import { createHash } from 'node:crypto';
import { CODEC_ENV, CODEC_TEXTS } from './texts';

/** One AES-256 key and its id. */
interface PayloadKey {
  id: string;
  key: Buffer;
}

/** The keys a process holds: `current` encrypts; every key in `all` decrypts. */
export interface PayloadKeys {
  current: PayloadKey;
  /** By key id: the current key and the old ones. */
  all: ReadonlyMap<string, PayloadKey>;
}

/** Bytes of an AES-256 key. */
const KEY_BYTES = 32;

/** The id of a key: the first 8 bytes of its SHA-256, as 16 hex digits. */
export function keyIdOf(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Parse one base64 key; throws a message naming `variable` (never the value) when it is not 32 bytes. */
function parseKey(text: string, variable: string): PayloadKey {
  const trimmed = text.trim();
  if (!BASE64.test(trimmed) || trimmed.length % 4 !== 0) throw new Error(CODEC_TEXTS.badKey(variable, CODEC_TEXTS.notBase64));
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) throw new Error(CODEC_TEXTS.badKey(variable, CODEC_TEXTS.wrongLength(key.length)));
  return { id: keyIdOf(key), key };
}

/**
 * The keys of `TROUPE_PAYLOAD_KEY` and `TROUPE_PAYLOAD_OLD_KEYS`, or undefined when no key is set
 * (encryption off). Throws when a key is malformed, so a typo never silently turns encryption off.
 */
export function payloadKeysFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadKeys | undefined {
  const currentText = env[CODEC_ENV.key]?.trim();
  const oldTexts = (env[CODEC_ENV.oldKeys] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!currentText) {
    if (oldTexts.length) throw new Error(CODEC_TEXTS.badKey(CODEC_ENV.key, `it is empty while ${CODEC_ENV.oldKeys} is set`));
    return undefined;
  }
  const current = parseKey(currentText, CODEC_ENV.key);
  const all = new Map<string, PayloadKey>([[current.id, current]]);
  oldTexts.forEach((text, i) => {
    const old = parseKey(text, `${CODEC_ENV.oldKeys} (entry ${i + 1})`);
    if (!all.has(old.id)) all.set(old.id, old);
  });
  return { current, all };
}
