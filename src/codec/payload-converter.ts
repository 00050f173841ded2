/**
 * troupe's payload converter: the SDK's default converters in the SDK's order (undefined, binary,
 * JSON), with JSON encoded and decoded by the runtime's native `TextEncoder` and `TextDecoder`. The
 * SDK's JSON converter encodes with a UTF-8 encoder written in JavaScript, char by char: a step's
 * ~4 KB request took ~12 µs to encode that way against ~5 µs natively, and a result ~4 µs to decode
 * against ~1 µs (BENCHMARKS.md, B5). The bytes are the same: `JSON.stringify` never emits a lone
 * surrogate, and both encoders write every other text as standard UTF-8.
 *
 * The SDK loads this module by path (`payloadConverterPath`), in the worker, in every client and
 * inside the workflow bundle, whose sandbox has Node's `TextEncoder` and `TextDecoder`; so it imports
 * nothing but `@temporalio/common`.
 */
import {
  BinaryPayloadConverter,
  CompositePayloadConverter,
  encodingKeys,
  encodingTypes,
  METADATA_ENCODING_KEY,
  UndefinedPayloadConverter,
  ValueError,
  type Payload,
  type PayloadConverterWithEncoding,
} from '@temporalio/common';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** JSON payloads (`json/plain`), as the SDK's `JsonPayloadConverter` writes and reads them. */
class NativeJsonPayloadConverter implements PayloadConverterWithEncoding {
  encodingType = encodingTypes.METADATA_ENCODING_JSON;

  toPayload(value: unknown): Payload | undefined {
    if (value === undefined) return undefined;
    let json: string;
    try {
      json = JSON.stringify(value);
    } catch {
      return undefined;
    }
    return { metadata: { [METADATA_ENCODING_KEY]: encodingKeys.METADATA_ENCODING_JSON }, data: encoder.encode(json) };
  }

  fromPayload<T>(content: Payload): T {
    if (content.data === undefined || content.data === null) throw new ValueError('Got payload with no data');
    return JSON.parse(decoder.decode(content.data)) as T;
  }
}

/** Loaded by the SDK through `payloadConverterPath`. */
export const payloadConverter = new CompositePayloadConverter(
  new UndefinedPayloadConverter(),
  new BinaryPayloadConverter(),
  new NativeJsonPayloadConverter(),
);
