/**
 * Result hashes: SHA-256 of the normalized text, first 12 hex characters, computed with
 * a pure-JS implementation so the same code runs in the Temporal workflow sandbox (no node:crypto).
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { utf8Bytes } from './utf8';

/** Length of a result hash in hex characters. */
export const RESULT_HASH_LENGTH = 12;

/** Full SHA-256 of the UTF-8 text, as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8Bytes(text)));
}

/** The 12-hex result hash of an already normalized text (`normalizeResult`). */
export function hashResult(normalized: string): string {
  return sha256Hex(normalized).slice(0, RESULT_HASH_LENGTH);
}
