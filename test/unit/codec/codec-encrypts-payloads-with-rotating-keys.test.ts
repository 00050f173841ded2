/**
 * The AES-256-GCM payload codec (src/codec): what an encrypted payload looks like, key ids, key
 * rotation through TROUPE_PAYLOAD_OLD_KEYS, and the messages of every way decryption can fail.
 */
import { randomBytes } from 'node:crypto';
import { ApplicationFailure, DefaultFailureConverter, defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  AesGcmCodec,
  CODEC_ENV,
  CODEC_TEXTS,
  ENCODED_FAILURE_CONVERTER_PATH,
  ENCRYPTED_METADATA,
  keyIdOf,
  NoKeyCodec,
  payloadKeysFromEnv,
  troupeDataConverter,
  type PayloadKeys,
} from '../../../src/codec';
import { failureConverter } from '../../../src/codec/failure-converter';

const newKey = () => randomBytes(32).toString('base64');
const keysOf = (current: string, ...old: string[]): PayloadKeys =>
  payloadKeysFromEnv({ [CODEC_ENV.key]: current, [CODEC_ENV.oldKeys]: old.join(',') })!;
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');
const plain = (value: unknown): Payload => defaultPayloadConverter.toPayload(value)!;

test('a key id is the first 8 bytes of the SHA-256 of the key, in hex (what `sha256sum` prints)', () => {
  // `head -c 32 /dev/zero | sha256sum` → 66687aadf862bd776c8f…
  expect(keyIdOf(Buffer.alloc(32))).toBe('66687aadf862bd77');
  const keys = keysOf(Buffer.alloc(32).toString('base64'));
  expect(keys.current.id).toBe('66687aadf862bd77');
});

test('an encrypted payload carries the marker, the cipher and the key id, and none of the plaintext', async () => {
  const keys = keysOf(newKey());
  const codec = new AesGcmCodec(keys);
  const original = plain({ task: 'TOP-SECRET-TASK', n: 1 });
  const [encoded] = await codec.encode([original]);
  expect(Object.fromEntries(Object.entries(encoded.metadata!).map(([k, v]) => [k, text(v)]))).toEqual({
    [ENCRYPTED_METADATA.encodingKey]: 'binary/encrypted',
    [ENCRYPTED_METADATA.cipherKey]: 'AES-256-GCM',
    [ENCRYPTED_METADATA.keyIdKey]: keys.current.id,
  });
  expect(text(encoded.data)).not.toContain('TOP-SECRET-TASK');
  // the original encoding is hidden too
  expect(text(encoded.data)).not.toContain('json/plain');
  // 12-byte IV + ciphertext + 16-byte tag
  expect(encoded.data!.length).toBeGreaterThan(original.data!.length + 28);
  const [decoded] = await codec.decode([encoded]);
  expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ task: 'TOP-SECRET-TASK', n: 1 });
  expect(text(decoded.metadata!.encoding)).toBe('json/plain');
});

test('the same payload encrypts differently each time (a fresh IV per payload)', async () => {
  const codec = new AesGcmCodec(keysOf(newKey()));
  const [a, b] = await codec.encode([plain('same'), plain('same')]);
  expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
});

test('key rotation: the new key encrypts, the old key in OLD_KEYS still decrypts, and without it decryption names the missing key id', async () => {
  const oldKey = newKey();
  const newer = newKey();
  const before = new AesGcmCodec(keysOf(oldKey));
  const [oldPayload] = await before.encode([plain('written before the rotation')]);

  const rotated = new AesGcmCodec(keysOf(newer, oldKey));
  expect(defaultPayloadConverter.fromPayload((await rotated.decode([oldPayload]))[0])).toBe('written before the rotation');
  const [newPayload] = await rotated.encode([plain('written after')]);
  expect(text(newPayload.metadata![ENCRYPTED_METADATA.keyIdKey])).toBe(keyIdOf(Buffer.from(newer, 'base64')));
  expect(rotated.keyIds).toEqual([keyIdOf(Buffer.from(newer, 'base64')), keyIdOf(Buffer.from(oldKey, 'base64'))]);

  const withoutOld = new AesGcmCodec(keysOf(newer));
  const oldId = keyIdOf(Buffer.from(oldKey, 'base64'));
  await expect(withoutOld.decode([oldPayload])).rejects.toThrow(
    CODEC_TEXTS.unknownKeyId(oldId, [keyIdOf(Buffer.from(newer, 'base64'))]),
  );
  expect(CODEC_TEXTS.unknownKeyId(oldId, ['x'])).toContain(oldId);
});

test('an altered payload fails its integrity check instead of decoding to garbage', async () => {
  const keys = keysOf(newKey());
  const codec = new AesGcmCodec(keys);
  const [encoded] = await codec.encode([plain('intact')]);
  const data = Buffer.from(encoded.data!);
  data[20] ^= 1;
  await expect(codec.decode([{ ...encoded, data }])).rejects.toThrow(CODEC_TEXTS.tampered(keys.current.id));
  await expect(codec.decode([{ ...encoded, data: data.subarray(0, 10) }])).rejects.toThrow(CODEC_TEXTS.tampered(keys.current.id));
});

test('payloads stored before encryption was turned on decode unchanged', async () => {
  const codec = new AesGcmCodec(keysOf(newKey()));
  const old = plain({ stored: 'in the clear' });
  expect(await codec.decode([old])).toEqual([old]);
});

test('a process without a key stores plain payloads and, reading an encrypted one, names the key id it needs', async () => {
  const keys = keysOf(newKey());
  const [encrypted] = await new AesGcmCodec(keys).encode([plain('x')]);
  const none = new NoKeyCodec();
  const p = plain('y');
  expect(await none.encode([p])).toEqual([p]);
  await expect(none.decode([encrypted])).rejects.toThrow(CODEC_TEXTS.noKeyForEncrypted(keys.current.id));
});

test('malformed keys are refused with a message that names the variable and never the value', () => {
  const shortKey = randomBytes(16).toString('base64');
  expect(() => payloadKeysFromEnv({ [CODEC_ENV.key]: shortKey })).toThrow(
    CODEC_TEXTS.badKey(CODEC_ENV.key, CODEC_TEXTS.wrongLength(16)),
  );
  let message = '';
  try {
    payloadKeysFromEnv({ [CODEC_ENV.key]: 'not base64 at all!' });
  } catch (e) {
    message = (e as Error).message;
  }
  expect(message).toBe(CODEC_TEXTS.badKey(CODEC_ENV.key, CODEC_TEXTS.notBase64));
  expect(message).not.toContain('not base64 at all!');
  expect(() => payloadKeysFromEnv({ [CODEC_ENV.key]: newKey(), [CODEC_ENV.oldKeys]: `${newKey()}, ${shortKey}` })).toThrow(
    CODEC_TEXTS.badKey(`${CODEC_ENV.oldKeys} (entry 2)`, CODEC_TEXTS.wrongLength(16)),
  );
  expect(() => payloadKeysFromEnv({ [CODEC_ENV.oldKeys]: newKey() })).toThrow(CODEC_ENV.key);
  expect(payloadKeysFromEnv({})).toBeUndefined();
  expect(payloadKeysFromEnv({ [CODEC_ENV.key]: '  ' })).toBeUndefined();
});

test('the data converter encrypts and encodes failures only when a key is set', () => {
  const on = troupeDataConverter({ [CODEC_ENV.key]: newKey() });
  expect(on.payloadCodecs).toHaveLength(1);
  expect(on.payloadCodecs![0]).toBeInstanceOf(AesGcmCodec);
  expect(on.failureConverterPath).toBe(ENCODED_FAILURE_CONVERTER_PATH);
  const off = troupeDataConverter({});
  expect(off.payloadCodecs![0]).toBeInstanceOf(NoKeyCodec);
  expect(off.failureConverterPath).toBeUndefined();
});

test('the failure converter moves a failure message into an encoded payload and restores it on the way back', () => {
  const failure = failureConverter.errorToFailure(ApplicationFailure.create({ message: 'the task was TOP-SECRET' }), defaultPayloadConverter);
  expect(failure.message).toBe('Encoded failure');
  expect(failure.encodedAttributes).toBeDefined();
  const back = new DefaultFailureConverter().failureToError(failure, defaultPayloadConverter);
  expect(back.message).toBe('the task was TOP-SECRET');
});
