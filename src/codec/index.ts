/**
 * Payload encryption (docs/encryption.md): keys from the environment, the
 * AES-256-GCM codec, the one data-converter factory every troupe process uses, and the codec
 * server the Web UI calls to show decrypted payloads.
 */
export { AesGcmCodec, ENCRYPTED_METADATA, NoKeyCodec } from './aes-gcm';
export { ENCODED_FAILURE_CONVERTER_PATH, PAYLOAD_CONVERTER_PATH, payloadCodecFromEnv, troupeDataConverter } from './data-converter';
export { keyIdOf, payloadKeysFromEnv, type PayloadKeys } from './keys';
export { CODEC_SERVER_DEFAULTS, startCodecServer, type CodecServer, type CodecServerOptions } from './server';
export { CODEC_ENV, CODEC_TEXTS } from './texts';
