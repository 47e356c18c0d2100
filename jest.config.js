// Three projects: `unit` needs nothing but Node; `integration` runs on bare control planes
// (kube-apiserver + etcd: nothing runs pods), `e2e` on workloads control planes (plus
// kube-controller-manager, kube-scheduler and kwok nodes): one per jest worker, all started by
// the project's global setup — which jest runs only when the run selects tests of that project
// (docs/testing.md). `globals` tells
// test/support/cluster.ts which cluster `testCluster()` means. All are TypeScript compiled by
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
  // A hang guard, not a timing check: tests wait on real apiservers, kubelets and clocks, and
  // on a machine whose CPUs are busy with other work a cluster start alone has taken over a
  // minute. A test that needs more says so itself.
  testTimeout: 300_000,
  // A failed test that leaves a loop or socket behind could keep jest alive after the report,
  // until CI's time runs out. Tests stop what they start (afterEach/afterAll); this makes the
  // report the end.
  forceExit: true,
  // Every test file loads its own copy of the modules it imports, and the process running
  // them does not give that memory back: in one process the heap grew to ~2 GB over the unit
  // files alone and late files ran up to 10x slower (long collections). With this limit jest
  // runs the files in one worker process even on two CPUs, rather than in its own process,
  // and replaces the worker once it has grown past the limit after a file.
  workerIdleMemoryLimit: '1GB',
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
      globals: { __PLANWRIGHT_CLUSTER_MODE__: 'bare' },
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
      globals: { __PLANWRIGHT_CLUSTER_MODE__: 'workloads' },
    },
  ],
};
