/**
 * Three projects: fast unit tests, server tests (real Temporal dev server, real worker, HTTP stub), and
 * the package test (build, `npm pack`, install the tarball into a fresh project and import it).
 */
const common = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
};
module.exports = {
  testTimeout: 120000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'server',
      testMatch: ["<rootDir>/test/server/**/*.test.ts"],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
    { ...common, displayName: 'package', testMatch: ['<rootDir>/test/package/**/*.test.ts'] },
    // `npm run test:cluster`: the deployment of docker-compose.yml as local processes (test/cluster/cluster.ts)
    { ...common, displayName: 'cluster', testMatch: ['<rootDir>/test/cluster/**/*.test.ts'] },
  ],
};
