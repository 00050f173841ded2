/**
 * The run's page in the Temporal Web UI (docs/library.md, "Reaching Temporal and the Web UI"):
 * `TEMPORAL_UI_URL` when set; else derived for a local server without TLS (the dev server's UI port
 * is its gRPC port + 1000) and for Temporal Cloud; no link for any other server.
 */
import { webUiLink } from '../../../src/client/web-ui';

const local = { address: 'localhost:7233', namespace: 'default', tls: false as const };

describe('the Web UI link of a run', () => {
  it('uses TEMPORAL_UI_URL when set, without a trailing slash, and escapes the id', () => {
    expect(webUiLink({ ...local, address: 'temporal.internal:7233', tls: true }, 'essay-1/x', { TEMPORAL_UI_URL: 'https://ui.internal/' })).toBe(
      'https://ui.internal/namespaces/default/workflows/essay-1%2Fx',
    );
  });

  it("derives a local dev server's UI from its gRPC port", () => {
    expect(webUiLink(local, 'essay-1', {})).toBe('http://localhost:8233/namespaces/default/workflows/essay-1');
    expect(webUiLink({ ...local, address: '127.0.0.1:41031', namespace: 'dev' }, 'r', {})).toBe('http://127.0.0.1:42031/namespaces/dev/workflows/r');
  });

  it("derives Temporal Cloud's UI from a tmprl.cloud address", () => {
    expect(webUiLink({ address: 'ns.acct.tmprl.cloud:7233', namespace: 'ns.acct', tls: true }, 'r', {})).toBe('https://cloud.temporal.io/namespaces/ns.acct/workflows/r');
  });

  it('gives none for another server, or a local one behind TLS', () => {
    expect(webUiLink({ ...local, address: 'temporal.internal:7233' }, 'r', {})).toBeUndefined();
    expect(webUiLink({ ...local, tls: true }, 'r', {})).toBeUndefined();
  });
});
