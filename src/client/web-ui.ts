/**
 * The link to a run's page in the Temporal Web UI (docs/operating.md, "The Temporal UI"), which
 * `troupe run` prints and a program gets from {@link webUiLink}. The Temporal profile file has no UI
 * address, so it comes from `TEMPORAL_UI_URL` when set; else it is derived from the address the
 * client connects to: Temporal Cloud's UI for a `*.tmprl.cloud` address, and for a local server
 * without TLS the port `temporal server start-dev` serves its UI on (the gRPC port + 1000: 7233 →
 * 8233). Anything else has no link: a self-hosted UI's address cannot be guessed.
 */
import type { ConnectionSettings } from '../connection';

/** Hosts a local dev server listens on. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The Temporal CLI's dev server serves its UI this far above its gRPC port (`--ui-port` default). */
const DEV_UI_PORT_OFFSET = 1000;

/** Where the Web UI is, for the server of `settings`: `TEMPORAL_UI_URL`, or derived; undefined when unknown. */
export function webUiBase(settings: Pick<ConnectionSettings, 'address' | 'tls'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.TEMPORAL_UI_URL?.trim();
  if (given) return given.replace(/\/+$/, '');
  const m = /^(.*):(\d+)$/.exec(settings.address);
  const host = (m ? m[1] : settings.address).toLowerCase();
  if (host.endsWith('.tmprl.cloud')) return 'https://cloud.temporal.io';
  if (!m || settings.tls !== false || !LOCAL_HOSTS.has(host)) return undefined;
  return `http://${host}:${Number(m[2]) + DEV_UI_PORT_OFFSET}`;
}

/**
 * The Web UI page of run `workflowId` in `settings`' namespace, or undefined when the UI's address
 * is unknown (set `TEMPORAL_UI_URL`).
 */
export function webUiLink(settings: Pick<ConnectionSettings, 'address' | 'tls' | 'namespace'>, workflowId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const base = webUiBase(settings, env);
  return base === undefined ? undefined : `${base}/namespaces/${encodeURIComponent(settings.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
