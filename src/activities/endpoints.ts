/**
 * Which endpoints and key variables a role file may name. A role comes from whoever starts a run, while
 * the worker's environment holds the secrets: left unchecked, `model.base_url` plus `model.api_key_env`
 * would let a role send any variable of the worker, as a bearer token, to any address it chooses. The
 * worker's operator lists what roles may use; a model that names neither uses the worker's own
 * endpoint and key, and is always allowed.
 */
import type { ResolvedModel } from '../core/graph/types';

/** Where the activities reach the LLM when a model names no endpoint of its own (injected by the worker). */
export interface LlmEndpointOptions {
  baseUrl?: string;
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Honour every role's own `base_url` and `api_key_env` without consulting the allowlists; only for a
   * setup where the same person writes the roles and owns the worker (`troupe dev`).
   */
  trustRoleEndpoints?: boolean;
  /**
   * Stream model calls (default: yes, unless `TROUPE_STREAM=off` in `env`): their partial text then
   * travels in the activities' heartbeat details (docs/observability.md, "Live output").
   */
  stream?: boolean;
}

/** The environment variables and defaults the policy reads. */
export const ENDPOINT_SETTINGS = {
  allowedBaseUrlsVar: 'TROUPE_ALLOWED_BASE_URLS',
  allowedKeyEnvsVar: 'TROUPE_ALLOWED_KEY_ENVS',
  baseUrlVar: 'OPENAI_BASE_URL',
  keyVar: 'OPENAI_API_KEY',
  openAiBaseUrl: 'https://api.openai.com/v1',
  /** `off` turns streamed model calls off for the worker. */
  streamVar: 'TROUPE_STREAM',
} as const;

/** What the policy tells users, kept together so tests pin them. */
export const ENDPOINT_TEXTS = {
  baseUrlNotAllowed: (url: string, allowed: string[]) =>
    `model.base_url "${url}" is not allowed by this worker (allowed: ${listed(allowed)}); ` +
    `add it to ${ENDPOINT_SETTINGS.allowedBaseUrlsVar} on the worker to allow it`,
  keyEnvNotAllowed: (name: string, allowed: string[]) =>
    `model.api_key_env "${name}" is not allowed by this worker (allowed: ${listed(allowed)}); ` +
    `add it to ${ENDPOINT_SETTINGS.allowedKeyEnvsVar} on the worker to allow it`,
  invalidListEntry: (entry: string) =>
    `${ENDPOINT_SETTINGS.allowedBaseUrlsVar}: "${entry}" is not an absolute URL (for example https://api.openai.com/v1)`,
  violation: (who: string, message: string) => `${who}: ${message}`,
  nothing: 'none',
  /** The fixed message of a refused redirect; the refusal itself is one of the two below. */
  redirectStopped: 'troupe did not follow a redirect of the model endpoint',
  redirectRefused: (target: string, allowed: string[]) =>
    `the endpoint redirected to ${target}, which is not under an allowed base URL (allowed: ${listed(allowed)}); ` +
    `the request, and with it the API key, was not sent there. Point model.base_url (or ${ENDPOINT_SETTINGS.baseUrlVar}) ` +
    `at the address that answers, or add it to ${ENDPOINT_SETTINGS.allowedBaseUrlsVar} on the worker`,
  tooManyRedirects: (hops: number, last: string) =>
    `the endpoint redirected more than ${hops} times in a row (the last from ${last}); troupe stopped following`,
} as const;

function listed(items: string[]): string {
  return items.length > 0 ? items.join(', ') : ENDPOINT_TEXTS.nothing;
}

/** The worker's allowlists, built once from its environment by {@link endpointPolicy}. */
export interface EndpointPolicy {
  /** Base URLs (and everything below their path) a role's `base_url` may name. */
  baseUrls: string[];
  /** Variable names a role's `api_key_env` may name. */
  keyEnvs: string[];
  /** Every role value is honoured (see {@link LlmEndpointOptions.trustRoleEndpoints}). */
  trustRole: boolean;
}

/** The endpoint a model without a `base_url` of its own is sent to. */
export function workerBaseUrl(opts: Pick<LlmEndpointOptions, 'baseUrl' | 'env'>): string {
  return opts.baseUrl || opts.env?.[ENDPOINT_SETTINGS.baseUrlVar] || ENDPOINT_SETTINGS.openAiBaseUrl;
}

/** A comma-separated list, trimmed, without empty entries; undefined when the variable is unset or blank. */
function commaList(value: string | undefined): string[] | undefined {
  const items = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return items.length > 0 ? items : undefined;
}

/**
 * Builds the policy from the worker's options and environment: `TROUPE_ALLOWED_BASE_URLS` (default:
 * the worker's own base URL) and `TROUPE_ALLOWED_KEY_ENVS` (default: `OPENAI_API_KEY`). Throws when
 * a listed base URL is not a URL, so a typo stops the worker at start rather than refusing every run.
 */
export function endpointPolicy(opts: LlmEndpointOptions): EndpointPolicy {
  const env = opts.env ?? {};
  const listedUrls = commaList(env[ENDPOINT_SETTINGS.allowedBaseUrlsVar]);
  const invalid = (listedUrls ?? []).filter((u) => parseBaseUrl(u) === undefined);
  if (invalid.length > 0) throw new Error(invalid.map(ENDPOINT_TEXTS.invalidListEntry).join('\n'));
  return {
    baseUrls: listedUrls ?? [workerBaseUrl(opts)],
    keyEnvs: commaList(env[ENDPOINT_SETTINGS.allowedKeyEnvsVar]) ?? [ENDPOINT_SETTINGS.keyVar],
    trustRole: opts.trustRoleEndpoints === true,
  };
}

interface ParsedBaseUrl {
  protocol: string;
  hostname: string;
  port: string;
  /** The path without its trailing slashes (`''` for the root). */
  path: string;
}

function parseBaseUrl(text: string): ParsedBaseUrl | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (!url.hostname) return undefined;
  // URL has already lower-cased the host, dropped a default port and resolved `.`/`..` segments
  return { protocol: url.protocol, hostname: url.hostname, port: url.port, path: url.pathname.replace(/\/+$/, '') };
}

/**
 * Whether `candidate` lies under `allowed`: the same scheme, host and port, and a path equal to the
 * allowed path or below it on a `/` boundary. So `https://api.openai.com` does not allow
 * `https://api.openai.com.evil.net`, `http://127.0.0.1:80` does not allow `http://127.0.0.1:8080`, and
 * `https://host/v1` does not allow `https://host/v10`.
 */
export function baseUrlAllowed(candidate: string, allowed: string): boolean {
  const c = parseBaseUrl(candidate);
  const a = parseBaseUrl(allowed);
  if (!c || !a) return false;
  if (c.protocol !== a.protocol || c.hostname !== a.hostname || c.port !== a.port) return false;
  return c.path === a.path || c.path.startsWith(`${a.path}/`);
}

/** A URL as messages show it: without credentials, query or fragment it might carry. */
export function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return text;
  }
}

/** One setting of a model the worker refuses. */
interface EndpointViolation {
  setting: 'base_url' | 'api_key_env';
  /** What the role asked for: the URL, or the variable's name (never its value). */
  value: string;
  message: string;
}

/** The verdict on one model: allowed, or every setting the worker refuses and one message naming them. */
type EndpointCheck = { ok: true } | { ok: false; violations: EndpointViolation[]; message: string };

/** Checks a model's own `base_url` and `api_key_env` against the worker's policy. */
export function checkModelEndpoint(model: ResolvedModel, policy: EndpointPolicy): EndpointCheck {
  if (policy.trustRole) return { ok: true };
  const violations: EndpointViolation[] = [];
  if (model.baseUrl !== undefined && !policy.baseUrls.some((allowed) => baseUrlAllowed(model.baseUrl!, allowed))) {
    violations.push({
      setting: 'base_url',
      value: model.baseUrl,
      message: ENDPOINT_TEXTS.baseUrlNotAllowed(model.baseUrl, policy.baseUrls.map(shownUrl)),
    });
  }
  if (model.apiKeyEnv !== undefined && !policy.keyEnvs.includes(model.apiKeyEnv)) {
    violations.push({
      setting: 'api_key_env',
      value: model.apiKeyEnv,
      message: ENDPOINT_TEXTS.keyEnvNotAllowed(model.apiKeyEnv, policy.keyEnvs),
    });
  }
  if (violations.length === 0) return { ok: true };
  return { ok: false, violations, message: violations.map((v) => v.message).join('; ') };
}

/** A refused setting of one of a run's models, with who uses the model (`agent writer`, `judge`). */
interface NamedEndpointViolation extends EndpointViolation {
  who: string;
}

/**
 * Checks every model of a run (its agents and its judge) at once and returns all refusals, so a run
 * can be refused at its start with one complete list instead of failing at its first request.
 */
export function checkRunEndpoints(
  models: ReadonlyArray<{ who: string; model: ResolvedModel }>,
  policy: EndpointPolicy,
): NamedEndpointViolation[] {
  return models.flatMap(({ who, model }) => {
    const check = checkModelEndpoint(model, policy);
    return check.ok
      ? []
      : check.violations.map((v) => ({ ...v, who, message: ENDPOINT_TEXTS.violation(who, v.message) }));
  });
}
