// Every program the test suite builds from Go modules (or unpacks from Debian packages), in one
// list: the runner (test/runner) builds them up front, before the jest projects that need them
// start, so that no test file spends its worker's time on a build. Each `ensure` is the same
// function a test calls itself (cached in the machine's cache under a lock), so a test run on
// its own still builds what it needs, and a warm machine finds everything at once.
import { ensureControlPlaneBinaries } from '../../src/localcluster/index.ts';
import { prepareRealNodes } from '../../src/localcluster/nodes/runtime.ts';
import { ensureKuttl } from '../conformance/kuttl/build.ts';
import { ensureCertManager } from '../e2e/manifests/cert-manager.ts';
import { extensionOracleBinary, oracleBinary } from '../gotemplate/oracle.ts';
import { yamlOracleBinary } from '../gotemplate/yaml-oracle.ts';
import { conversionOracle } from './conversion-oracle.ts';
import { ensureHelm } from './helm.ts';
import { ensureKudoCli } from './kudo-cli.ts';

/** The jest groups of the runner (test/runner/plan.ts). */
export type TestGroup = 'unit' | 'integration' | 'e2e';

export interface TestTool {
  readonly name: string;
  /**
   * Tools of one lane build one after the other, the two lanes side by side: a `go build`
   * keeps both cores busy only while it compiles, not while it downloads modules or links.
   * The tools of Kubernetes' own module share one lane, so their common packages compile once;
   * so do those of test/controlplane/clients (helm first: it compiles the client libraries
   * kuttl and cert-manager then reuse, and kwok later in the other lane).
   */
  readonly lane: 'kubernetes' | 'other';
  /** The first group that needs it: the tool is built before that group starts. */
  readonly neededBy: TestGroup;
  /** Builds it on first use (or finds it in the cache). */
  ensure(onProgress: (line: string) => void): Promise<unknown>;
}

/**
 * In build order within each lane: what the earliest groups need first, the e2e-only tools
 * last (they build while the unit and integration files run).
 */
export const TEST_TOOLS: readonly TestTool[] = [
  {
    name: 'gotemplate oracle (KUDO)',
    lane: 'other',
    neededBy: 'unit',
    ensure: (p) => oracleBinary(p),
  },
  {
    name: 'gotemplate oracle (sprig v3)',
    lane: 'other',
    neededBy: 'unit',
    ensure: (p) => extensionOracleBinary(p),
  },
  { name: 'yaml oracle', lane: 'other', neededBy: 'unit', ensure: (p) => yamlOracleBinary(p) },
  { name: 'helm', lane: 'other', neededBy: 'unit', ensure: (p) => ensureHelm({ onProgress: p }) },
  {
    name: 'conversion oracle',
    lane: 'kubernetes',
    neededBy: 'unit',
    ensure: (p) => conversionOracle(p),
  },
  {
    name: 'control plane (bare)',
    lane: 'kubernetes',
    neededBy: 'integration',
    ensure: (p) => ensureControlPlaneBinaries({ mode: 'bare', onProgress: p }),
  },
  {
    name: 'kuttl',
    lane: 'other',
    neededBy: 'integration',
    ensure: (p) => ensureKuttl({ onProgress: p }),
  },
  {
    name: "KUDO's kubectl-kudo",
    lane: 'other',
    neededBy: 'integration',
    ensure: (p) => ensureKudoCli({ onProgress: p }),
  },
  {
    name: 'control plane (workloads, real nodes)',
    lane: 'kubernetes',
    // Not only e2e: test/integration/cli/start.test.ts runs `npm start` without a kubeconfig,
    // whose local control plane is the workloads one (a cold run failed it waiting on this build).
    neededBy: 'integration',
    ensure: async (p: (line: string) => void): Promise<void> => {
      const prepared = await prepareRealNodes({ onProgress: p });
      // Without root the e2e clusters use kwok nodes (they say so): build what those run.
      if ('unavailable' in prepared)
        await ensureControlPlaneBinaries({ mode: 'workloads', onProgress: p });
    },
  },
  {
    name: 'cert-manager',
    lane: 'other',
    neededBy: 'e2e',
    ensure: (p) => ensureCertManager({ onProgress: p }),
  },
];
