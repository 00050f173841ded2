/**
 * `--plugins <file>`: load a plugin module before YAML compiles, so what it
 * registers (`registerTopology`, `registerCondition`, ...) is known to the loader.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI_TEXTS } from './texts';

/** Require the plugin module; returns an error message instead of throwing. */
export function loadPlugins(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const resolved = path.resolve(file);
  if (!fs.existsSync(resolved)) return CLI_TEXTS.pluginsNotFound(file);
  try {
    require(resolved);
    return undefined;
  } catch (e) {
    return CLI_TEXTS.pluginsFailed(file, e instanceof Error ? e.message : String(e));
  }
}
