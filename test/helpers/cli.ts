/** Run the real CLI entry (`main`) in-process against the test server, capturing its output. */
import { main } from '../../src/client';
import { testAddress } from './temporal';

export async function troupe(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  process.env.TEMPORAL_ADDRESS = testAddress();
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}
