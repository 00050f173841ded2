/**
 * Reading a Prometheus text exposition (what `GET /metrics` serves) in tests: every sample with its
 * name, labels and value, and sums over the samples whose labels include a given set.
 */

/** One sample line: `name{label="value",…} 12.5`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of an exposition, comments skipped. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]] = l[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** The series names of an exposition (histograms' `_bucket`, `_sum`, `_count` as they are). */
export function seriesNames(samples: Sample[]): Set<string> {
  return new Set(samples.map((s) => s.name));
}

/** Scrape `url` over HTTP and parse it. */
export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return parseExposition(await res.text());
}
