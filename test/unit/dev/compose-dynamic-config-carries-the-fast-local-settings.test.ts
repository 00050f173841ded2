/**
 * The compose stack's dynamic config (deploy/dynamicconfig/troupe.yaml) carries every setting that
 * `troupe dev` and the tests start their dev server with (FAST_LOCAL_DYNAMIC_CONFIG), with the same
 * value, so a self-hosted stack gets the step times and start behaviour BENCHMARKS.md measures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { FAST_LOCAL_DYNAMIC_CONFIG } from '../../../src/dev/temporal-server';

test('every fast local dev-server setting is in the compose dynamic config with the same value', () => {
  const file = parse(readFileSync(join(__dirname, '../../../deploy/dynamicconfig/troupe.yaml'), 'utf8')) as Record<string, Array<{ value: unknown; constraints?: unknown }>>;
  expect(Object.keys(FAST_LOCAL_DYNAMIC_CONFIG).length).toBeGreaterThan(0);
  for (const [key, value] of Object.entries(FAST_LOCAL_DYNAMIC_CONFIG)) {
    expect({ key, values: file[key] }).toEqual({ key, values: [{ value }] });
  }
});
