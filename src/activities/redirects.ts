/**
 * The fetch of troupe's OpenAI clients: it follows redirects itself, hop by hop, and only to URLs
 * under the base URLs the worker allows, so an allowed endpoint cannot pass the API key on. Node's
 * own fetch keeps the `Authorization` header on a same-origin redirect: `http://host/v1` answering
 * 307 to `http://host/other` would carry the key past the allowed path (docs/deploying.md, "Which endpoints a
 * shared worker allows"; the allowlists are in ./endpoints.ts). A hop to another origin (scheme, host
 * and port) goes without credentials, as the Fetch standard has it for a cross-origin redirect: two
 * allowed endpoints are not one party, and a key meant for one must not reach the other.
 */
import { baseUrlAllowed, ENDPOINT_TEXTS, shownUrl, type EndpointPolicy } from './endpoints';

/** The fetch signature the openai package takes (`ClientOptions.fetch`). */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * How many redirects one request may follow (Node's fetch follows 20).
 * @internal exported for tests
 */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** What the Fetch standard drops with the body when a redirect turns a request into a GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'];

/**
 * Headers that carry credentials whatever their value, dropped on a hop to another origin: the
 * Fetch standard's `Authorization`, and what Node's fetch drops besides (`Proxy-Authorization`,
 * `Cookie`). A header that carries the client's key under another name (`api-key`) is dropped too,
 * found by its value ({@link allowedPrefixFetch}).
 * @internal exported for tests
 */
export const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie'];

/** Keys shorter than this are placeholders (`troupe-no-key` is longer, and harmless), not secrets to look for in every header. */
const MIN_SECRET_LENGTH = 8;

/**
 * A redirect troupe did not follow: its target lies outside the allowed base URLs, or there were
 * too many. The message is fixed and `refusal` says which: the openai package sniffs an error's text
 * for "timed out", and a target's path must not turn a refusal into a retried timeout.
 * @internal exported for tests
 */
export class RedirectRefusedError extends Error {
  override readonly name = 'RedirectRefusedError';

  constructor(readonly refusal: string) {
    super(ENDPOINT_TEXTS.redirectStopped);
  }
}

/** The refusal behind a failed request, if a redirect was refused (the openai package wraps it as the cause). */
export function redirectRefusal(err: unknown): string | undefined {
  if (err instanceof RedirectRefusedError) return err.refusal;
  const cause = err instanceof Error ? err.cause : undefined;
  return cause instanceof RedirectRefusedError ? cause.refusal : undefined;
}

/**
 * Where a client for `baseUrl` may follow redirects: the worker's allowed base URLs, plus `baseUrl`
 * itself when they do not cover it (the worker's own endpoint, always allowed); only `baseUrl` when
 * the worker trusts the role (`troupe dev`), whose endpoint the worker's list does not describe.
 */
export function redirectPrefixes(baseUrl: string, policy: EndpointPolicy): string[] {
  if (policy.trustRole) return [baseUrl];
  return policy.baseUrls.some((allowed) => baseUrlAllowed(baseUrl, allowed)) ? policy.baseUrls : [baseUrl, ...policy.baseUrls];
}

/** The request for the next hop: 307 and 308 keep method and body; 303, and 301/302 after a POST, become a GET without a body. */
function nextRequest(request: RequestInit, status: number): RequestInit {
  const method = (request.method ?? 'GET').toUpperCase();
  const toGet = status === 303 ? method !== 'GET' && method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  if (!toGet) return request;
  const headers = new Headers(request.headers);
  for (const name of BODY_HEADERS) headers.delete(name);
  const next: RequestInit & { duplex?: string } = { ...request, method: 'GET', headers };
  delete next.body;
  delete next.duplex;
  return next;
}

/** The request without its credentials: {@link CREDENTIAL_HEADERS} and every header whose value holds one of `secrets`. */
function withoutCredentials(request: RequestInit, secrets: readonly string[]): RequestInit {
  const headers = new Headers(request.headers);
  for (const [name, value] of [...headers]) {
    if (CREDENTIAL_HEADERS.includes(name) || secrets.some((secret) => value.includes(secret))) headers.delete(name);
  }
  return { ...request, headers };
}

/** Options of {@link allowedPrefixFetch}. */
interface AllowedPrefixFetchOptions {
  /** The client's keys: a header whose value holds one is a credential, whatever its name. */
  secrets?: readonly string[];
  /** The fetch that makes each hop (default: Node's). */
  fetch?: Fetch;
}

/**
 * A fetch that follows at most {@link MAX_REDIRECTS} redirects, each only when its `Location`,
 * resolved against the current URL, lies under one of `allowed` (the rule of `baseUrlAllowed`:
 * scheme, host, port and a path prefix on a `/` boundary). Otherwise it throws a
 * {@link RedirectRefusedError} and sends nothing there. A hop to another origin than the one before
 * it drops the credentials (`Authorization`, `Proxy-Authorization`, `Cookie`, and any header that
 * holds one of `secrets`), for it and every hop after it. Other headers, the abort signal and the
 * timeout that rides on it apply to every hop. The first URL is not checked: it is the client's own
 * base URL, which the worker's policy allowed before the client was built.
 */
export function allowedPrefixFetch(allowed: readonly string[], options: AllowedPrefixFetchOptions = {}): Fetch {
  const fetchImpl: Fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const secrets = (options.secrets ?? []).filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  const shownAllowed = allowed.map(shownUrl);
  return async (input, init = {}) => {
    let url: string;
    if (typeof input === 'string' || input instanceof URL) {
      url = String(input);
    } else {
      // a Request: its parts become the init, its body read once so that a 307 or 308 can send it again
      const body = input.body === null ? undefined : await input.arrayBuffer();
      init = { method: input.method, headers: input.headers, signal: input.signal, ...(body ? { body } : {}), ...init };
      url = input.url;
    }
    let request: RequestInit = { ...init, redirect: 'manual' };
    for (let hops = 0; ; hops += 1) {
      const response = await fetchImpl(url, request);
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
      if (location === null) return response;
      await response.body?.cancel().catch(() => undefined);
      let target: string | undefined;
      try {
        target = new URL(location, url).href;
      } catch {
        target = undefined;
      }
      if (target === undefined || !allowed.some((prefix) => baseUrlAllowed(target, prefix))) {
        throw new RedirectRefusedError(ENDPOINT_TEXTS.redirectRefused(shownUrl(target ?? location), shownAllowed));
      }
      if (hops >= MAX_REDIRECTS) throw new RedirectRefusedError(ENDPOINT_TEXTS.tooManyRedirects(MAX_REDIRECTS, shownUrl(url)));
      request = nextRequest(request, response.status);
      if (new URL(target).origin !== new URL(url).origin) request = withoutCredentials(request, secrets);
      url = target;
    }
  };
}
