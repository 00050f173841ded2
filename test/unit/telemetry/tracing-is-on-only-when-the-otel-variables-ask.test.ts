/** When troupe traces, from the standard OpenTelemetry variables (docs/observability.md, "Traces"). */
import { DEFAULT_SERVICE_NAMES, tracingSettings } from '../../../src/telemetry/tracing-env';

describe('tracingSettings', () => {
  test('off with none of the variables', () => {
    expect(tracingSettings('worker', {})).toBeUndefined();
    expect(tracingSettings('client', { OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
  });

  test('on with an OTLP endpoint, a traces endpoint, or OTEL_TRACES_EXPORTER=otlp', () => {
    expect(tracingSettings('worker', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ serviceName: 'troupe-worker', captureContent: false });
    expect(tracingSettings('client', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toEqual({ serviceName: 'troupe-client', captureContent: false });
    expect(tracingSettings('worker', { OTEL_TRACES_EXPORTER: 'otlp' })).toBeDefined();
    expect(tracingSettings('worker', { OTEL_TRACES_EXPORTER: 'console, OTLP' })).toBeDefined();
  });

  test('OTEL_TRACES_EXPORTER without otlp, or OTEL_SDK_DISABLED=true, turns it off whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingSettings('worker', { ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingSettings('worker', { ...endpoint, OTEL_TRACES_EXPORTER: 'console' })).toBeUndefined();
    expect(tracingSettings('worker', { ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(tracingSettings('worker', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettings('worker', { ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBeDefined();
  });

  test('the service is OTEL_SERVICE_NAME, else the side; content capture only with its variable set to true', () => {
    const on = { OTEL_TRACES_EXPORTER: 'otlp' };
    expect(DEFAULT_SERVICE_NAMES).toEqual({ worker: 'troupe-worker', client: 'troupe-client' });
    expect(tracingSettings('worker', { ...on, OTEL_SERVICE_NAME: 'billing-agents' })?.serviceName).toBe('billing-agents');
    expect(tracingSettings('worker', { ...on, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' })?.captureContent).toBe(true);
    expect(tracingSettings('worker', { ...on, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '1' })?.captureContent).toBe(false);
  });
});
