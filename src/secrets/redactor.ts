/**
 * The worker's secrets and how to take them out of a text (docs/security.md: secrets never come
 * back): its API keys, the values its tools file took from the environment (`${VAR}`),
 * `Authorization` header values, the payload keys. Pure and free of Temporal and of any side: the
 * activities' redaction step (`activities/redact.ts`), the tools library's log and the worker's
 * spans (`telemetry/tracing-sdk.ts`) all redact with the one {@link Redactor} the worker builds.
 */

/**
 * What stands in for a secret.
 * @internal exported for tests
 */
export const REDACTED = '[redacted]';

/**
 * The shortest value treated as a secret: shorter ones (`local`, `none`) are words that would be cut
 * out of ordinary text, and no real key is this short.
 * @internal exported for tests
 */
export const MIN_SECRET_CHARS = 8;

/** How deep a result is walked for strings (activity results are a few levels deep). */
const MAX_DEPTH = 32;

/** The variables whose values are the worker's secrets besides the API keys its policy names. */
const SECRET_VARIABLES = ['OPENAI_API_KEY', 'TEMPORAL_API_KEY', 'TROUPE_PAYLOAD_KEY', 'TROUPE_PAYLOAD_OLD_KEYS', 'TROUPE_CODEC_TOKEN'] as const;

/** `Bearer <token>` wherever it appears, so a token the worker never listed is still kept out. */
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g;

/** A text cut where a secret began or ended: `…` or troupe's truncation marker marks the cut. */
const CUT_MARK = /^(?:…|\s*\[troupe: truncated)/;

/** The worker's secrets and how to take them out of a text or a value. */
export class Redactor {
  private secrets: string[] = [];

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Adds a secret (ignored when shorter than {@link MIN_SECRET_CHARS}); comma-separated lists are split too. */
  add(secret: string | undefined): void {
    for (const value of [secret, ...(secret?.includes(',') ? secret.split(',') : [])]) {
      const s = value?.trim();
      if (!s || s.length < MIN_SECRET_CHARS || this.secrets.includes(s)) continue;
      this.secrets.push(s);
      // longest first, so a secret that contains another is replaced whole
      this.secrets.sort((a, b) => b.length - a.length);
    }
  }

  /** How many secrets it knows (for the worker's start line). */
  get size(): number {
    return this.secrets.length;
  }

  /**
   * Whether {@link text} could change `text`: false only when it provably returns `text` as it is.
   * Each rewrite needs one of: a secret's first {@link MIN_SECRET_CHARS} characters in the text (a
   * whole occurrence or a cut start), the text's first {@link MIN_SECRET_CHARS} characters inside a
   * secret (a cut end), or `Bearer` (the token pattern). A few `includes` instead of the rewrites and
   * the pattern, for the many short strings (span attributes) that hold none of them.
   */
  mayChange(text: string): boolean {
    if (text.includes('Bearer')) return true;
    if (this.secrets.length === 0) return false;
    const head = text.length >= MIN_SECRET_CHARS ? text.slice(0, MIN_SECRET_CHARS) : undefined;
    for (const s of this.secrets) {
      if (text.includes(s.slice(0, MIN_SECRET_CHARS))) return true;
      if (head !== undefined && s.includes(head)) return true;
    }
    return false;
  }

  /**
   * `text` without any secret: every whole occurrence, a secret's start where the text was cut after
   * it (at its end, or before `…` or a truncation marker), and a secret's end where the text begins.
   */
  text(text: string): string {
    let out = text;
    for (const s of this.secrets) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
      out = redactCutStart(out, s);
      out = redactCutEnd(out, s);
    }
    return out.replace(BEARER, `Bearer ${REDACTED}`);
  }

  /**
   * `value` with every string in it redacted: the same value when nothing changed, else a copy of the
   * arrays and objects on the way to what changed (plain JSON).
   */
  value<T>(value: T, depth = 0): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      let items: unknown[] | undefined;
      value.forEach((v: unknown, i) => {
        const clean = this.value(v, depth + 1);
        if (clean !== v) (items ??= [...(value as unknown[])])[i] = clean;
      });
      return (items ?? value) as T;
    }
    let fields: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const clean = this.value(v, depth + 1);
      if (clean !== v) (fields ??= { ...(value as Record<string, unknown>) })[k] = clean;
    }
    return (fields ?? value) as T;
  }
}

/** The longest start of `secret` (at least {@link MIN_SECRET_CHARS}) that ends `text` or a cut in it. */
function redactCutStart(text: string, secret: string): string {
  let out = text;
  for (let at = out.indexOf(secret.slice(0, MIN_SECRET_CHARS)); at >= 0; at = out.indexOf(secret.slice(0, MIN_SECRET_CHARS), at + 1)) {
    let n = MIN_SECRET_CHARS;
    while (n < secret.length && at + n < out.length && out[at + n] === secret[n]) n += 1;
    const rest = out.slice(at + n);
    if (n < secret.length && (rest === '' || CUT_MARK.test(rest))) out = out.slice(0, at) + REDACTED + rest;
  }
  return out;
}

/** The longest end of `secret` (at least {@link MIN_SECRET_CHARS}) that begins `text` (a window cut from the front). */
function redactCutEnd(text: string, secret: string): string {
  for (let n = secret.length - 1; n >= MIN_SECRET_CHARS; n -= 1) {
    if (text.startsWith(secret.slice(secret.length - n))) return REDACTED + text.slice(n);
  }
  return text;
}

/** The worker's secrets from its environment: the API keys its policy allows, and {@link SECRET_VARIABLES}. */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>, keyEnvs: readonly string[]): Array<string | undefined> {
  return [...new Set([...keyEnvs, ...SECRET_VARIABLES])].map((name) => env[name]);
}
