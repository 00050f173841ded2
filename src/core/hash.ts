/**
 * Result hashes (SPEC §5.1): SHA-256 of the normalized text, first 12 hex characters, computed with
 * a pure-JS implementation so the same code runs in the Temporal workflow sandbox (no node:crypto).
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';

/** Length of a result hash in hex characters. */
export const RESULT_HASH_LENGTH = 12;

/**
 * UTF-8 bytes of `text`, lone surrogates encoded as U+FFFD (as `TextEncoder` does). Written out so
 * hashing depends on no global that the workflow sandbox might lack.
 */
export function utf8Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else {
        c = 0xfffd;
      }
    } else if (c >= 0xd800 && c <= 0xdfff) {
      c = 0xfffd;
    }
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 0x3f);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return out.subarray(0, n);
}

/** Full SHA-256 of the UTF-8 text, as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8Bytes(text)));
}

/** The 12-hex result hash of an already normalized text (`normalizeResult`), as rolebox computes it. */
export function hashResult(normalized: string): string {
  return sha256Hex(normalized).slice(0, RESULT_HASH_LENGTH);
}
