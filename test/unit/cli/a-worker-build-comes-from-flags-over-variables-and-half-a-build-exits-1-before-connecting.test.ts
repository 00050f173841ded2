/**
 * A worker's build (Worker Versioning, docs/versioning.md) comes from `--deployment-name`/`--build-id`
 * or `TEMPORAL_DEPLOYMENT_NAME`/`TEMPORAL_WORKER_BUILD_ID`, a flag over its variable; neither makes
 * an unversioned worker, and only one of the two is refused, naming the one missing — by
 * `troupe worker` with exit code 1 before it connects.
 */
import { main } from '../../../src/cli/main';
import { DEPLOYMENT_ENV, workerBuild, WORKER_TEXTS } from '../../../src/worker';

const NAME = DEPLOYMENT_ENV.deploymentName;
const BUILD = DEPLOYMENT_ENV.buildId;

describe('workerBuild', () => {
  test('from the flags', () => {
    expect(workerBuild({ deploymentName: 'troupe', buildId: 'v2' }, {})).toEqual({ deploymentName: 'troupe', buildId: 'v2' });
  });

  test('from the variables', () => {
    expect(workerBuild({}, { [NAME]: 'troupe', [BUILD]: 'v1' })).toEqual({ deploymentName: 'troupe', buildId: 'v1' });
  });

  test('a flag over its variable, each of the two on its own', () => {
    const env = { [NAME]: 'from-env', [BUILD]: 'env-build' };
    expect(workerBuild({ deploymentName: 'troupe', buildId: 'v3' }, env)).toEqual({ deploymentName: 'troupe', buildId: 'v3' });
    expect(workerBuild({ buildId: 'v3' }, env)).toEqual({ deploymentName: 'from-env', buildId: 'v3' });
    expect(workerBuild({ deploymentName: 'troupe' }, env)).toEqual({ deploymentName: 'troupe', buildId: 'env-build' });
  });

  test('neither given (or the variables empty): an unversioned worker', () => {
    expect(workerBuild({}, {})).toBeUndefined();
    expect(workerBuild({}, { [NAME]: '', [BUILD]: '' })).toBeUndefined();
  });

  test('only one of the two: refused, naming the one missing and where to give it', () => {
    expect(() => workerBuild({ deploymentName: 'troupe' }, {})).toThrow(WORKER_TEXTS.halfBuild('build id'));
    expect(() => workerBuild({}, { [BUILD]: 'v1' })).toThrow(WORKER_TEXTS.halfBuild('deployment name'));
    expect(() => workerBuild({ buildId: 'v1' }, { [NAME]: '' })).toThrow(WORKER_TEXTS.halfBuild('deployment name'));
    expect(WORKER_TEXTS.halfBuild('build id')).toBe(
      'a worker build needs a deployment name and a build id; the build id is missing ' +
        '(--deployment-name/TEMPORAL_DEPLOYMENT_NAME, --build-id/TEMPORAL_WORKER_BUILD_ID)',
    );
  });
});

describe('troupe worker with half a build', () => {
  const saved = { ...process.env };
  let stderr = '';
  let spy: jest.SpyInstance;
  beforeEach(() => {
    stderr = '';
    spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
    // nothing listens here: reaching the connection step would print "cannot reach Temporal" instead
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
    delete process.env[NAME];
    delete process.env[BUILD];
  });
  afterEach(() => {
    spy.mockRestore();
    process.env = { ...saved };
  });

  test('--deployment-name without a build id exits 1 with the message, before connecting', async () => {
    expect(await main(['worker', '--deployment-name', 'troupe'])).toBe(1);
    expect(stderr).toBe(`${WORKER_TEXTS.halfBuild('build id')}\n`);
  });

  test('TEMPORAL_WORKER_BUILD_ID without a deployment name does the same', async () => {
    process.env[BUILD] = 'v1';
    expect(await main(['worker'])).toBe(1);
    expect(stderr).toBe(`${WORKER_TEXTS.halfBuild('deployment name')}\n`);
  });
});
