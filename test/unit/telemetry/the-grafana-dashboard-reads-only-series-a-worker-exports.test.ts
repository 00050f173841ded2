/**
 * The Grafana dashboard of the compose stack (deploy/grafana/dashboards/troupe.json) reads only
 * series a troupe worker exports: troupe's own (src/core/observe/metric-catalogue.ts) and the SDK's
 * listed in `SDK_SERIES`, both of which the metrics server test finds in a real worker's scrape. Its panels
 * cover what docs/observability.md promises, and the files compose mounts are where it mounts them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { SDK_SERIES, TROUPE_METRICS, troupeSeries } from '../../../src/core/observe/metric-catalogue';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/dashboards/troupe.json'), 'utf8'));
const panels: Array<{ type: string; title: string; datasource?: { uid: string }; targets?: Array<{ expr: string }> }> = dashboard.panels;
const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

describe('the troupe Grafana dashboard', () => {
  test('every troupe_* and temporal_* series it queries is one a worker exports', () => {
    const exported = new Set<string>([...SDK_SERIES, ...troupeSeries()]);
    const queried = new Set(exprs.flatMap((e) => e.match(/\b(?:troupe|temporal)_[a-z0-9_]+/g) ?? []));
    expect(queried.size).toBeGreaterThan(10);
    expect([...queried].filter((s) => !exported.has(s))).toEqual([]);
  });

  test('it has a panel over each of troupe metrics, through the provisioned datasource', () => {
    for (const m of Object.values(TROUPE_METRICS)) expect(exprs.some((e) => e.includes(m.name))).toBe(true);
    const datasource = parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yml'), 'utf8'));
    for (const p of panels.filter((x) => x.type !== 'row')) expect(p.datasource?.uid).toBe(datasource.datasources[0].uid);
    expect(new Set(panels.map((p) => p.title)).size).toBe(panels.length);
  });

  test('compose mounts the provisioning, the dashboards and the scrape config, and the worker serves metrics', () => {
    const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));
    const provider = parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/provisioning/dashboards/troupe.yml'), 'utf8'));
    const mounts = (service: string) => (compose.services[service].volumes as string[]).map((v) => v.split(':').slice(0, 2));
    expect(mounts('grafana')).toEqual(expect.arrayContaining([['./deploy/grafana/provisioning', '/etc/grafana/provisioning'], ['./deploy/grafana/dashboards', provider.providers[0].options.path]]));
    expect(mounts('prometheus')).toEqual(expect.arrayContaining([['./deploy/prometheus', '/etc/prometheus']]));
    expect(compose.services.worker.command).toEqual(['worker', '--metrics', '0.0.0.0:9464']);
    const scrape = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8'));
    expect(scrape.scrape_configs[0].dns_sd_configs[0]).toMatchObject({ names: ['worker'], port: 9464 });
    for (const service of ['prometheus', 'grafana']) {
      expect(compose.services[service].image).toMatch(/:\$\{[A-Z_]+:-[^}]+\}$/);
      for (const port of compose.services[service].ports as string[]) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
  });
});
