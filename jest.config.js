// Two projects: `unit` needs nothing but Node; `integration` shares one real control plane
// (kube-apiserver + etcd) per run, started in its global setup. Both are TypeScript compiled by
// swc to ESM, because @kubernetes/client-node 2.x is ESM-only.
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  // Sources import siblings as `./x.ts` (tsc rewrites to .js on build); older `./x.js`
  // specifiers are mapped to their .ts source.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
};

/** @type {import('jest').Config} */
export default {
  // Integration tests wait on a real apiserver; the limit is a hang guard, not a timing check.
  testTimeout: 60_000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/gotemplate/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
    },
  ],
};
