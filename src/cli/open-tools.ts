/** Opening the `--tools` file of a command: its errors are printed located, and the command exits 1. */
import type { ToolRegistry, ToolsLogger } from '../tools';
import { openTools } from '../worker';
import { err } from './io';

/**
 * The registry of the `--tools` file (undefined without one), or `false` after printing why it cannot
 * be opened. The caller closes the registry.
 */
export async function openToolsOrExplain(file: string | undefined, logger?: ToolsLogger): Promise<ToolRegistry | undefined | false> {
  if (file === undefined) return undefined;
  try {
    return await openTools(file, logger);
  } catch (e) {
    err((e as Error).message);
    return false;
  }
}
