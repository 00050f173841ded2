/**
 * troupe's payload converter encodes JSON with the native TextEncoder (src/codec/payload-converter.ts).
 * Every payload must stay byte for byte what the SDK's default converter writes, so workers, clients
 * and histories of either converter read each other's payloads.
 */
import fc from 'fast-check';
import { defaultPayloadConverter, ValueError, type Payload } from '@temporalio/common';
import { CODEC_ENV, PAYLOAD_CONVERTER_PATH, troupeDataConverter } from '../../../src/codec';
import { payloadConverter } from '../../../src/codec/payload-converter';
import { bundleOptions } from '../../../src/worker';

const bytes = (p: Payload | undefined) => ({
  metadata: Object.fromEntries(Object.entries(p?.metadata ?? {}).map(([k, v]) => [k, Array.from(v ?? [])])),
  data: Array.from(p?.data ?? []),
});

// texts with lone surrogates, astral characters and line separators, inside any JSON value
const text = fc.oneof(fc.string(), fc.constantFrom('é', '😀', '\uD83D', '\uDE00', '\uDBFF\uDFFF', '\uDC00\uD800', '\u2028', '\u0000', '研究'));
const value = fc.oneof(
  fc.jsonValue(),
  text,
  fc.dictionary(text, fc.oneof(text, fc.double(), fc.boolean(), fc.constant(null), fc.array(text))),
);

test('a JSON payload is byte for byte the SDK converter’s, and each converter reads the other’s', () => {
  fc.assert(
    fc.property(value, (v) => {
      const ours = payloadConverter.toPayload(v);
      const sdks = defaultPayloadConverter.toPayload(v);
      expect(bytes(ours)).toEqual(bytes(sdks));
      expect(payloadConverter.fromPayload(sdks)).toEqual(defaultPayloadConverter.fromPayload(sdks));
      expect(defaultPayloadConverter.fromPayload(ours)).toEqual(payloadConverter.fromPayload(ours));
    }),
    { numRuns: 2000 },
  );
});

test('undefined, binary data and values JSON cannot write go where the SDK sends them', () => {
  for (const v of [undefined, null, new Uint8Array([0, 1, 255]), { nested: [1, 'two', { three: true }] }]) {
    expect(bytes(payloadConverter.toPayload(v))).toEqual(bytes(defaultPayloadConverter.toPayload(v)));
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  expect(() => payloadConverter.toPayload(cyclic)).toThrow(ValueError);
  expect(() => defaultPayloadConverter.toPayload(cyclic)).toThrow(ValueError);
  expect(() => payloadConverter.fromPayload({ metadata: defaultPayloadConverter.toPayload(1).metadata })).toThrow(ValueError);
  expect(() => payloadConverter.toPayload(BigInt(1))).toThrow(ValueError);
});

test('every troupe process and the workflow bundle load it', () => {
  expect(troupeDataConverter({}).payloadConverterPath).toBe(PAYLOAD_CONVERTER_PATH);
  expect(troupeDataConverter({ [CODEC_ENV.key]: Buffer.alloc(32, 7).toString('base64') }).payloadConverterPath).toBe(PAYLOAD_CONVERTER_PATH);
  expect(bundleOptions('/any/workflows.ts').payloadConverterPath).toBe(PAYLOAD_CONVERTER_PATH);
  expect(require(PAYLOAD_CONVERTER_PATH).payloadConverter).toBe(payloadConverter);
});
