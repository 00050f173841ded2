/**
 * Renders a suite's results as markdown (bench/results/latest.md): the setup, then per benchmark its
 * method, tables and its targets (BENCHMARKS.md) with met / not met.
 */
import type { Environment } from './env';
import type { BenchReport, Calibration, Table } from './types';

/** Everything a suite run produced. */
export interface SuiteResult {
  environment: Environment;
  options: Record<string, unknown>;
  setup: Record<string, unknown>;
  benchmarks: BenchReport[];
  errors: Array<{ id: string; message: string }>;
  totalMs: number;
  calibration?: Calibration;
}

function cell(v: string | number): string {
  return String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** One markdown table. */
export function renderTable(t: Table): string {
  const lines = [
    `**${t.title}**`,
    '',
    `| ${t.headers.map(cell).join(' | ')} |`,
    `| ${t.headers.map(() => '---').join(' | ')} |`,
    ...t.rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
  if (t.note) lines.push('', `_${t.note}_`);
  return lines.join('\n');
}

function verdict(met: boolean | null): string {
  if (met === null) return 'not measured';
  return met ? 'met' : '**not met**';
}

/** The whole report. */
export function renderMarkdown(s: SuiteResult): string {
  const e = s.environment;
  const out: string[] = [
    '# troupe benchmark results',
    '',
    `${e.date} · ${e.host.cpus} × ${e.host.model}, ${e.host.memGiB} GiB, ${e.host.platform} ${e.host.kernel} · Node ${e.node} · ${e.temporalCli} · ` +
      Object.entries(e.packages).map(([k, v]) => `${k} ${v}`).join(', ') +
      ` · git ${e.git.sha?.slice(0, 10) ?? '?'}${e.git.dirtyFiles ? ` (+${e.git.dirtyFiles} uncommitted files)` : ''}`,
    '',
    renderTable({
      title: 'Setup',
      headers: ['item', 'value'],
      rows: Object.entries({ ...s.options, ...s.setup, 'suite time s': Math.round(s.totalMs / 1000) }).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]),
    }),
  ];
  for (const b of s.benchmarks) {
    out.push('', `## ${b.id} — ${b.title}`, '', b.method, '');
    for (const t of b.tables) out.push(renderTable(t), '');
    out.push(
      renderTable({
        title: `${b.id} targets`,
        headers: ['target', 'measured', 'verdict'],
        rows: b.targets.map((t) => [t.target, t.measured, verdict(t.met)]),
      }),
    );
    if (b.durationMs !== undefined) out.push('', `_${b.id} took ${Math.round(b.durationMs / 1000)} s._`);
  }
  if (s.errors.length) {
    out.push('', '## Errors', '', ...s.errors.map((x) => `- ${x.id}: ${x.message}`));
  }
  return out.join('\n') + '\n';
}
