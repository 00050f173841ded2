/**
 * One MCP server as the worker sees it: a single client shared by every run on the worker, connected
 * on first use, replaced when the connection dies, closed on shutdown. The SDK never re-establishes a
 * connection by itself (a dead stdio child answers "Connection closed" then "Not connected"; an HTTP
 * server that restarted answers 404 for our session forever, or `fetch failed` while it is down), so
 * a call that finds the connection gone drops the client, connects afresh and is sent once more.
 *
 * The client advertises no capabilities: in particular not `roots`, which would let a filesystem
 * server replace the folders its command line allows with whatever the client offered.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolRequest, CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServerSpec } from './file-load';
import type { ToolsLogger } from './log';
import { classifyMcpError, isStaleSocket } from './mcp-errors';
import { cappedHttpTransport } from './mcp-read-cap';
import { STDERR_LOG_LIMIT, StderrTail } from './stderr-tail';

/** Timing of connections. */
const CONNECTION_SETTINGS = {
  /** Longest wait for a server to start and answer `initialize` (and list its tools). */
  connectTimeoutMs: 30_000,
  /** Longest wait for an HTTP server to acknowledge the end of our session on shutdown. */
  endSessionTimeoutMs: 1_000,
} as const;

/**
 * Log lines and error texts about connections, so tests can pin them.
 * @internal exported for tests
 */
export const MCP_CONNECTION_TEXTS = {
  prefix: (server: string) => `[mcp ${server}]`,
  stderrLine: (server: string, line: string) => `[mcp ${server}] ${line}`,
  stderrNotLogged: (server: string, count: number) =>
    `[mcp ${server}] ${count.toLocaleString('en-US')} stderr line${count === 1 ? '' : 's'} not logged (more than ${STDERR_LOG_LIMIT.linesPerSecond} a second)`,
  protocolError: (server: string, message: string) => `[mcp ${server}] ${message}`,
  reconnecting: (server: string, reason: string) =>
    `[mcp ${server}] connection lost (${reason}); connecting afresh and sending the call once more`,
  cannotStart: (server: string, error: string, stderr: readonly string[]) =>
    `MCP server ${server} could not be started: ${error}${stderr.length > 0 ? `; its stderr ended with: ${stderr.join(' | ')}` : ''}`,
  closed: (server: string) => `MCP server ${server} is shut down`,
} as const;

/** A connected client and what it listed when it connected. */
interface Lease {
  client: Client;
  tools: Tool[];
  /** Increases with every new connection, so a stale failure cannot drop a newer client. */
  generation: number;
}

/** Thrown when a server cannot be started or connected (a transport failure: worth retrying later). */
export class McpStartError extends Error {
  override readonly name = 'McpStartError';
}

function clientVersion(): string {
  try {
    return (require('../../package.json') as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const CLIENT_INFO = { name: 'troupe', version: clientVersion() };

/**
 * Every tool a client lists, page by page (the SDK does not follow `nextCursor` itself). The client
 * checks a result against its tool's output schema only for tools of the last page it listed, so
 * after several pages it is given the whole list; that method is private in the SDK's types, hence
 * the guarded call.
 */
async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== undefined);
  const cache = (client as unknown as { cacheToolMetadata?: (all: Tool[]) => void }).cacheToolMetadata;
  if (pages > 1 && typeof cache === 'function') cache.call(client, tools);
  return tools;
}

/** Rejects with the signal's reason as soon as it aborts, else settles like `promise`. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** How one call is sent: its cancellation, the timeout of each send, and whether a resend is safe. */
interface SendOptions {
  signal: AbortSignal;
  /** The request timeout for a send starting now (the remaining time of the call). */
  timeoutMs(): number;
  /** Whether to send again after a connection died while the server may already have acted. */
  resendAfterPossibleRun: boolean;
}

/** The shared connection to one server (see the module doc). */
export class McpConnection {
  private current: { generation: number; lease: Promise<Lease> } | undefined;
  private generation = 0;
  private closed = false;
  private readonly stderr: StderrTail;

  constructor(
    readonly spec: ServerSpec,
    private readonly log: ToolsLogger,
  ) {
    this.stderr = new StderrTail({
      line: (line) => log.info(MCP_CONNECTION_TEXTS.stderrLine(spec.name, line)),
      notLogged: (count) => log.warn(MCP_CONNECTION_TEXTS.stderrNotLogged(spec.name, count)),
    });
  }

  /** The server's name in the tools file. */
  get name(): string {
    return this.spec.name;
  }

  /** The connected client, connecting first when there is none; concurrent callers share one attempt. */
  async lease(signal?: AbortSignal): Promise<Lease> {
    if (this.closed) throw new McpStartError(MCP_CONNECTION_TEXTS.closed(this.name));
    if (!this.current) {
      const generation = ++this.generation;
      const entry = { generation, lease: this.connect(generation) };
      // a failed start is forgotten at once, so the next call tries again
      entry.lease.catch(() => this.forget(generation));
      this.current = entry;
    }
    return untilAborted(this.current.lease, signal);
  }

  /** The server's tools, as listed when the current connection was made. */
  async tools(): Promise<Tool[]> {
    return (await this.lease()).tools;
  }

  /** Calls a tool, reconnecting and sending once more when the connection turns out to be gone. */
  async callTool(params: CallToolRequest['params'], options: SendOptions): Promise<CallToolResult> {
    for (let send = 1; ; send += 1) {
      const lease = await this.lease(options.signal);
      const perSend = new AbortController();
      const forward = () => perSend.abort(options.signal.reason);
      options.signal.addEventListener('abort', forward, { once: true });
      try {
        // one controller per send: the SDK never removes its abort listener, so a shared signal would
        // collect listeners and, aborted later, cancel requests that had already finished
        return (await lease.client.callTool(params, undefined, { signal: perSend.signal, timeout: options.timeoutMs() })) as CallToolResult;
      } catch (err) {
        if (options.signal.aborted) throw err;
        const failure = classifyMcpError(err);
        if (failure.kind !== 'connection_lost') throw err;
        this.drop(lease);
        if (send > 1 || (failure.mayHaveRun && !options.resendAfterPossibleRun)) throw err;
        this.log.warn(MCP_CONNECTION_TEXTS.reconnecting(this.name, failure.message));
      } finally {
        options.signal.removeEventListener('abort', forward);
      }
    }
  }

  /** Forgets `lease`'s client if it is still the current one, and closes it. */
  drop(lease: Lease): void {
    this.forget(lease.generation);
    void lease.client.close().catch(() => undefined);
  }

  private forget(generation: number): void {
    if (this.current?.generation === generation) this.current = undefined;
  }

  /** Closes the connection for good (a stdio child that ignores the end of its input is signalled, then killed). */
  async close(): Promise<void> {
    this.closed = true;
    const current = this.current;
    this.current = undefined;
    const lease = await current?.lease.catch(() => undefined);
    if (lease) {
      const transport = lease.client.transport;
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
        await untilAborted(transport.terminateSession(), AbortSignal.timeout(CONNECTION_SETTINGS.endSessionTimeoutMs)).catch(() => undefined);
      }
      await lease.client.close().catch(() => undefined);
    }
    // even with no connection left: a child that died earlier may have left a line or a count unlogged
    this.stderr.flush();
  }

  private async connect(generation: number): Promise<Lease> {
    try {
      return await this.connectOnce(generation);
    } catch (err) {
      // starting over is safe (nothing ran yet) and meets fresh sockets once stale ones are known
      if (this.spec.kind !== 'http' || !isStaleSocket(err)) throw this.startError(err);
    }
    try {
      return await this.connectOnce(generation);
    } catch (err) {
      throw this.startError(err);
    }
  }

  private async connectOnce(generation: number): Promise<Lease> {
    const transport = this.transport();
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.onerror = (e) => this.log.warn(MCP_CONNECTION_TEXTS.protocolError(this.name, e.message));
    const timeout = CONNECTION_SETTINGS.connectTimeoutMs;
    try {
      await client.connect(transport, { timeout });
      const tools = await listAllTools(client, timeout);
      // set only now: closing a client that failed to start must not forget the attempt that replaces it
      // (once connected, a child that exits or a transport that closes makes the next call connect afresh)
      client.onclose = () => this.forget(generation);
      return { client, tools, generation };
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
  }

  private startError(err: unknown): McpStartError {
    this.stderr.flush();
    return new McpStartError(MCP_CONNECTION_TEXTS.cannotStart(this.name, classifyMcpError(err).message, this.stderr.lines()));
  }

  private transport(): StdioClientTransport | StreamableHTTPClientTransport {
    const spec = this.spec;
    if (spec.kind === 'http') {
      // replies are read under a cap, never buffered whole (mcp-read-cap.ts)
      return cappedHttpTransport(new URL(spec.url), { headers: spec.headers });
    }
    const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    return transport;
  }
}
