/**
 * The address `--metrics`/`TROUPE_METRICS_ADDRESS` names (an IP and a port; localhost is 127.0.0.1;
 * off when neither is set) and the bound of a label value.
 */
import { MAX_LABEL_CHARS, metricLabel } from '../../../src/core/observe/metric-catalogue';
import { metricsAddress, METRICS_TEXTS } from '../../../src/telemetry/worker-metrics';
import { waitingQuery } from '../../../src/telemetry/waiting';

describe('metricsAddress', () => {
  test('the flag wins over the variable; neither is off', () => {
    expect(metricsAddress(undefined, {})).toBeUndefined();
    expect(metricsAddress(undefined, { TROUPE_METRICS_ADDRESS: ' ' })).toBeUndefined();
    expect(metricsAddress(undefined, { TROUPE_METRICS_ADDRESS: '0.0.0.0:9464' })).toBe('0.0.0.0:9464');
    expect(metricsAddress('127.0.0.1:9465', { TROUPE_METRICS_ADDRESS: '0.0.0.0:9464' })).toBe('127.0.0.1:9465');
    expect(metricsAddress('localhost:9464', {})).toBe('127.0.0.1:9464');
    expect(metricsAddress('[::1]:9464', {})).toBe('[::1]:9464');
  });

  test.each([
    ['9464', METRICS_TEXTS.noPort],
    ['127.0.0.1', METRICS_TEXTS.noPort],
    ['127.0.0.1:0', METRICS_TEXTS.badPort('0')],
    ['127.0.0.1:65536', METRICS_TEXTS.badPort('65536')],
    ['127.0.0.1:http', METRICS_TEXTS.badPort('http')],
    ['prometheus:9464', METRICS_TEXTS.badHost('prometheus')],
    ['::1:9464', METRICS_TEXTS.badHost('::1')],
  ])('%s is refused: %s', (value, why) => {
    expect(() => metricsAddress(value, {})).toThrow(METRICS_TEXTS.badAddress(value, why));
  });
});

describe('metricLabel', () => {
  test('a name is kept, a long one is cut, none is "-"', () => {
    expect(metricLabel('writer')).toBe('writer');
    expect(metricLabel(undefined)).toBe('-');
    const long = 'ä'.repeat(200);
    expect(Array.from(metricLabel(long))).toHaveLength(MAX_LABEL_CHARS);
    expect(metricLabel(long).endsWith('…')).toBe(true);
  });
});

test('the waiting query counts running troupe runs of one queue that wait, the queue quoted', () => {
  expect(waitingQuery("it's")).toBe("WorkflowType = 'troupeRun' AND TroupeWaiting = true AND ExecutionStatus = 'Running' AND TaskQueue = 'it\\'s'");
});
