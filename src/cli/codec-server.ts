/**
 * `troupe codec-server [--port P] [--host H] [--origin URL,…] [--token T]`: serve the remote codec
 * endpoint of the Temporal Web UI (and of `temporal … --codec-endpoint`) with this environment's
 * payload keys, until SIGINT/SIGTERM. The token may come from TROUPE_CODEC_TOKEN instead, which
 * keeps it out of the process list; a `--host` other than a loopback address needs one.
 */
import { CODEC_ENV, CODEC_SERVER_DEFAULTS, CODEC_TEXTS, payloadCodecFromEnv, startCodecServer } from '../codec';
import { openBindRefusal } from '../codec/server';
import { stringFlag, type ParsedArgs } from './args';
import { err, out } from './io';

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return CODEC_SERVER_DEFAULTS.port;
  return /^\d+$/.test(value) && Number(value) <= 65535 ? Number(value) : undefined;
}

function parseOrigins(value: string | undefined): { origins: string[] } | { bad: string } {
  if (value === undefined) return { origins: [...CODEC_SERVER_DEFAULTS.origins] };
  const origins: string[] = [];
  for (const entry of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    let origin: string;
    try {
      origin = new URL(entry).origin;
    } catch {
      return { bad: entry };
    }
    if (origin === 'null') return { bad: entry };
    origins.push(origin);
  }
  return origins.length ? { origins } : { bad: value };
}

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  const port = parsePort(stringFlag(args, 'port'));
  if (port === undefined) {
    err(CODEC_TEXTS.badPort(stringFlag(args, 'port') ?? ''));
    return 1;
  }
  const parsed = parseOrigins(stringFlag(args, 'origin'));
  if ('bad' in parsed) {
    err(CODEC_TEXTS.badOrigin(parsed.bad));
    return 1;
  }
  const host = stringFlag(args, 'host') ?? CODEC_SERVER_DEFAULTS.host;
  const token = stringFlag(args, 'token') || process.env[CODEC_ENV.token] || undefined;
  const refusal = openBindRefusal(host, token);
  if (refusal) {
    err(refusal);
    return 1;
  }
  const codec = payloadCodecFromEnv();
  if (!codec) {
    err(CODEC_TEXTS.serverNeedsKey);
    return 1;
  }
  const server = await startCodecServer({
    codec,
    port,
    host,
    origins: parsed.origins,
    ...(token ? { token } : {}),
    log: err,
  });
  out(CODEC_TEXTS.listening(server.url, parsed.origins, codec.keyIds, token !== undefined));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  out(CODEC_TEXTS.stopped);
  return 0;
}
