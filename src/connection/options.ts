/**
 * One set of connection settings, two connections: the client's (`Connection.connect`, gRPC in
 * Node) and the worker's (`NativeConnection.connect`, the SDK's Rust core). Both take the same
 * address, TLS, API key and headers, so both are made here from the same {@link ConnectionSettings}.
 */
import type { ConnectionOptions } from '@temporalio/client';
import type { NativeConnectionOptions } from '@temporalio/worker';
import type { ConnectionSettings } from './load';

/** The options both connections share, from the settings. */
function shared(settings: ConnectionSettings) {
  return {
    address: settings.address,
    tls: settings.tls,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.metadata ? { metadata: { ...settings.metadata } } : {}),
  };
}

/** `Connection.connect` options (the client, the CLI). */
export function clientConnectionOptions(settings: ConnectionSettings): ConnectionOptions {
  return shared(settings);
}

/** `NativeConnection.connect` options (the worker). */
export function workerConnectionOptions(settings: ConnectionSettings): NativeConnectionOptions {
  return shared(settings);
}
