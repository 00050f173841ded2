/**
 * The AES-256-GCM payload codec. Each payload is replaced by one whose `data` is the encrypted
 * protobuf of the whole original payload (its metadata included, so the encoding travels hidden
 * too) and whose metadata says how to reverse it:
 *
 *   encoding            binary/encrypted   (the marker Temporal's samples and the Web UI know)
 *   encryption-cipher   AES-256-GCM
 *   encryption-key-id   16 hex digits      (keys.ts: the first 8 bytes of the key's SHA-256)
 *   data                12-byte random IV | ciphertext | 16-byte GCM tag
 *
 * Payloads without the marker pass through decode unchanged, so runs started before encryption
 * was turned on stay readable. Codecs run in the worker's main thread, never in the workflow
 * sandbox, so `node:crypto` is fine here.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { PayloadKeys } from './keys';
import { CODEC_TEXTS } from './texts';

/** Metadata keys and values of an encrypted payload. */
export const ENCRYPTED_METADATA = {
  encodingKey: 'encoding',
  encoding: 'binary/encrypted',
  cipherKey: 'encryption-cipher',
  cipher: 'AES-256-GCM',
  keyIdKey: 'encryption-key-id',
} as const;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ProtoPayload = temporal.api.common.v1.Payload;

const text = (bytes: Uint8Array | null | undefined): string | undefined =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

/** Whether a payload carries the encrypted marker. */
function isEncrypted(payload: Payload): boolean {
  return text(payload.metadata?.[ENCRYPTED_METADATA.encodingKey]) === ENCRYPTED_METADATA.encoding;
}

/** The key id an encrypted payload names, if any. */
function keyIdOfPayload(payload: Payload): string | undefined {
  return text(payload.metadata?.[ENCRYPTED_METADATA.keyIdKey]);
}

/** Encrypts with the current key, decrypts with whichever held key the payload names. */
export class AesGcmCodec implements PayloadCodec {
  constructor(private readonly keys: PayloadKeys) {}

  /** Ids of the keys this codec can decrypt with, the current one first. */
  get keyIds(): string[] {
    return [...this.keys.all.keys()];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys.current;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(ProtoPayload.encode(payload).finish()), cipher.final()]);
      return {
        metadata: {
          [ENCRYPTED_METADATA.encodingKey]: Buffer.from(ENCRYPTED_METADATA.encoding),
          [ENCRYPTED_METADATA.cipherKey]: Buffer.from(ENCRYPTED_METADATA.cipher),
          [ENCRYPTED_METADATA.keyIdKey]: Buffer.from(id),
        },
        data: Buffer.concat([iv, sealed, cipher.getAuthTag()]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncrypted(payload) ? this.decrypt(payload) : payload));
  }

  private decrypt(payload: Payload): Payload {
    const cipherName = text(payload.metadata?.[ENCRYPTED_METADATA.cipherKey]) ?? ENCRYPTED_METADATA.cipher;
    if (cipherName !== ENCRYPTED_METADATA.cipher) throw new Error(CODEC_TEXTS.unsupportedCipher(cipherName));
    const keyId = keyIdOfPayload(payload);
    if (!keyId) throw new Error(CODEC_TEXTS.noKeyId);
    const held = this.keys.all.get(keyId);
    if (!held) throw new Error(CODEC_TEXTS.unknownKeyId(keyId, this.keyIds));
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new Error(CODEC_TEXTS.tampered(keyId));
    try {
      const decipher = createDecipheriv('aes-256-gcm', held.key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return ProtoPayload.decode(plain);
    } catch {
      throw new Error(CODEC_TEXTS.tampered(keyId));
    }
  }
}

/**
 * The codec of a process without a key: it encodes nothing, and decoding an encrypted payload
 * fails with a message that says which key is needed, rather than a payload converter's
 * "unknown encoding".
 */
export class NoKeyCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      if (isEncrypted(payload)) throw new Error(CODEC_TEXTS.noKeyForEncrypted(keyIdOfPayload(payload) ?? '?'));
    }
    return payloads;
  }
}
