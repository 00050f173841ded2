import { Runtime } from '@temporalio/worker';
const addr = process.argv[2];
try {
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: addr, histogramBucketOverrides: { troupe_x_seconds: [0.1, 1, 10] } } } } });
  const m = Runtime.instance().metricMeter;
  m.createHistogram('troupe_x_seconds', 'float', 's', 'd').record(0.5, {});
  try { m.createCounter('troupe_c').add(0.5, {}); } catch (e) { console.log('float counter:', (e as Error).message); }
  setTimeout(async () => { const r = await fetch(`http://${addr}/metrics`); console.log((await r.text()).split('\n').filter(l=>l.includes('troupe')).join('\n')); process.exit(0); }, 300);
} catch (e) { console.log('ERR', (e as Error).constructor.name, (e as Error).message); }
