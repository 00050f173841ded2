/**
 * The one data-converter factory of troupe: `createWorker`, `connectClient` (so every CLI command),
 * `troupe dev` and `troupe codec-server` all take their codec from here, so a worker and a client
 * with the same environment always agree on how payloads are stored.
 */
import type { DataConverter } from '@temporalio/common';
import { AesGcmCodec, NoKeyCodec } from './aes-gcm';
import { payloadKeysFromEnv } from './keys';

/** Module path of the failure converter that encrypting workers load and bundle into the workflow. */
export const ENCODED_FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/** Module path of troupe's payload converter (JSON with the native UTF-8 encoder), for every process and bundle. */
export const PAYLOAD_CONVERTER_PATH = require.resolve('./payload-converter');

/**
 * The data converter for a process with this environment. With `TROUPE_PAYLOAD_KEY` set: the
 * AES-256-GCM codec (inputs, results, activity payloads, signals, queries, memo and user metadata
 * are encrypted; search attributes never are) and failure messages moved into encrypted payloads.
 * Without: payloads stay plain JSON and reading an encrypted one fails naming the key id it needs.
 * Either way JSON goes through troupe's payload converter (`payload-converter.ts`), which writes the
 * same bytes as the SDK's. Throws when a key is malformed.
 */
export function troupeDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  const keys = payloadKeysFromEnv(env);
  if (!keys) return { payloadConverterPath: PAYLOAD_CONVERTER_PATH, payloadCodecs: [new NoKeyCodec()] };
  return { payloadConverterPath: PAYLOAD_CONVERTER_PATH, payloadCodecs: [new AesGcmCodec(keys)], failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH };
}

/** The encrypting codec of this environment, or undefined when no key is set (the codec server needs one). */
export function payloadCodecFromEnv(env: NodeJS.ProcessEnv = process.env): AesGcmCodec | undefined {
  const keys = payloadKeysFromEnv(env);
  return keys ? new AesGcmCodec(keys) : undefined;
}
