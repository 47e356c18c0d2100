import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { assertGoAvailable, buildGoBinary } from './go-build.ts';
import { withDirectoryLock } from './lock.ts';
import type { ClusterMode } from './mode.ts';
import { cacheRoot, repositoryRoot } from './paths.ts';
import { ETCD_VERSION, KUBERNETES_VERSION, KWOK_VERSION, REGISTRY_VERSION } from './versions.ts';

/**
 * Absolute paths of the control-plane executables. The last three are present when the
 * binaries were ensured for the workloads mode (see {@link WorkloadBinaries}).
 */
export interface ControlPlaneBinaries {
  readonly kubeApiServer: string;
  readonly etcd: string;
  readonly kubectl: string;
  readonly kubeControllerManager?: string;
  readonly kubeScheduler?: string;
  readonly kwok?: string;
  /** Present when ensured with `realNodes` (see {@link NodeBinaries}). */
  readonly kubelet?: string;
  readonly registry?: string;
}

/** What real nodes add: the kubelet and the local image registry. */
export interface NodeBinaries extends WorkloadBinaries {
  readonly kubelet: string;
  readonly registry: string;
}

/** Everything the workloads mode runs. */
export interface WorkloadBinaries extends ControlPlaneBinaries {
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kwok: string;
}

export interface EnsureBinariesOptions {
  /** Which binaries: bare builds etcd, kube-apiserver and kubectl; workloads adds three. */
  readonly mode?: ClusterMode;
  /** Also the kubelet and the image registry of real nodes (workloads mode only). */
  readonly realNodes?: boolean;
  /** Progress lines for a person watching ("building kube-apiserver … 2m10s"). */
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
}

type BinaryName = keyof NodeBinaries;

interface BinarySpec {
  readonly name: BinaryName;
  readonly file: string;
  /** Folder of the wrapper module under test/controlplane/. */
  readonly module: 'kubernetes' | 'etcd' | 'clients';
  readonly pkg: string;
  readonly ldflags: string;
  /** `nodes`: only for real nodes. */
  readonly mode: ClusterMode | 'nodes';
}

/**
 * Binaries that share one cache folder and one lock. The folder name carries the versions and
 * a hash of the group's wrapper modules, so changing a go.mod builds afresh; kwok has its own
 * group so that bumping kwok does not rebuild Kubernetes (and the other way round).
 */
interface BinaryGroup {
  readonly folderPrefix: string;
  readonly modules: readonly BinarySpec['module'][];
  readonly specs: readonly BinarySpec[];
}

const versionLdflags = (() => {
  const [major, minor] = KUBERNETES_VERSION.replace(/^v/, '').split('.');
  const vars = {
    gitVersion: KUBERNETES_VERSION,
    gitMajor: major ?? '',
    gitMinor: minor ?? '',
    gitTreeState: 'clean',
  };
  // The servers report component-base's version; kubectl's client half reads client-go's.
  return ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']
    .flatMap((pkg) => Object.entries(vars).map(([k, v]) => `-X ${pkg}.${k}=${v}`))
    .join(' ');
})();

const kubernetesCommand = (
  name: BinaryName,
  file: string,
  mode: BinarySpec['mode'],
): BinarySpec => ({
  name,
  file,
  module: 'kubernetes',
  pkg: `k8s.io/kubernetes/cmd/${file}`,
  ldflags: `-s -w ${versionLdflags}`,
  mode,
});

const GROUPS: readonly BinaryGroup[] = [
  {
    folderPrefix: `${KUBERNETES_VERSION}-etcd${ETCD_VERSION}`,
    modules: ['kubernetes', 'etcd'],
    specs: [
      {
        name: 'etcd',
        file: 'etcd',
        module: 'etcd',
        pkg: 'go.etcd.io/etcd/server/v3',
        ldflags: '-s -w',
        mode: 'bare',
      },
      kubernetesCommand('kubeApiServer', 'kube-apiserver', 'bare'),
      kubernetesCommand('kubectl', 'kubectl', 'bare'),
      kubernetesCommand('kubeControllerManager', 'kube-controller-manager', 'workloads'),
      kubernetesCommand('kubeScheduler', 'kube-scheduler', 'workloads'),
      kubernetesCommand('kubelet', 'kubelet', 'nodes'),
    ],
  },
  {
    folderPrefix: `kwok${KWOK_VERSION}`,
    modules: ['clients'],
    specs: [
      {
        name: 'kwok',
        file: 'kwok',
        module: 'clients',
        pkg: 'sigs.k8s.io/kwok/cmd/kwok',
        // kwok's version constant already says 0.8.0 in the module; nothing to stamp.
        ldflags: '-s -w',
        mode: 'workloads',
      },
    ],
  },
  {
    folderPrefix: `registry${REGISTRY_VERSION}`,
    modules: ['clients'],
    specs: [
      {
        name: 'registry',
        file: 'registry',
        module: 'clients',
        pkg: 'github.com/google/go-containerregistry/cmd/registry',
        ldflags: '-s -w',
        mode: 'nodes',
      },
    ],
  },
];

/** Whether a binary is needed by `mode` (workloads needs everything bare needs). */
function neededBy(spec: BinarySpec, mode: ClusterMode, realNodes: boolean): boolean {
  if (spec.mode === 'nodes') return realNodes && mode === 'workloads';
  return mode === 'workloads' || spec.mode === 'bare';
}

/**
 * Builds the control-plane binaries from the Go wrapper modules in test/controlplane/ into a
 * cache outside the clone, once: later calls (and other checkouts) reuse them. Builds run under
 * a lock per cache folder so parallel callers do not build twice; only what `mode` needs is
 * built (bare: etcd, kube-apiserver, kubectl; workloads: also kube-controller-manager,
 * kube-scheduler and kwok).
 */
export async function ensureControlPlaneBinaries(
  options: EnsureBinariesOptions & { mode: 'workloads'; realNodes: true },
): Promise<NodeBinaries>;
export async function ensureControlPlaneBinaries(
  options: EnsureBinariesOptions & { mode: 'workloads' },
): Promise<WorkloadBinaries>;
export async function ensureControlPlaneBinaries(
  options?: EnsureBinariesOptions,
): Promise<ControlPlaneBinaries>;
export async function ensureControlPlaneBinaries(
  options: EnsureBinariesOptions = {},
): Promise<ControlPlaneBinaries> {
  const mode = options.mode ?? 'bare';
  const modulesDir = join(repositoryRoot(), 'test', 'controlplane');
  const paths: Partial<Record<BinaryName, string>> = {};
  for (const group of GROUPS) {
    const specs = group.specs.filter((s) => neededBy(s, mode, options.realNodes === true));
    if (specs.length === 0) continue;
    const binDir = join(
      cacheRoot(),
      'controlplane',
      `${group.folderPrefix}-${await fingerprint(modulesDir, group)}`,
    );
    for (const spec of specs) paths[spec.name] = join(binDir, spec.file);
    if (specs.every((s) => existsSync(join(binDir, s.file)))) continue;
    assertGoAvailable(`${describe(mode, options.realNodes === true)} for the local control plane`);
    await buildGroup(binDir, modulesDir, specs, options);
  }
  return paths as ControlPlaneBinaries;
}

function describe(mode: ClusterMode, realNodes: boolean): string {
  if (mode === 'bare') return 'kube-apiserver, kubectl and etcd';
  const workloads = 'kube-apiserver, kubectl, etcd, kube-controller-manager, kube-scheduler';
  return realNodes ? `${workloads}, kwok, kubelet and registry` : `${workloads} and kwok`;
}

async function buildGroup(
  binDir: string,
  modulesDir: string,
  specs: readonly BinarySpec[],
  options: EnsureBinariesOptions,
): Promise<void> {
  const progress = options.onProgress ?? (() => undefined);
  await mkdir(binDir, { recursive: true });
  await withDirectoryLock(
    join(binDir, '.lock'),
    {
      signal: options.signal,
      onWait: (pid) =>
        progress(`waiting for process ${pid}, which is building the control plane in ${binDir}`),
    },
    async () => {
      // Partial outputs of a build that was killed: nobody else can be writing them now.
      for (const entry of await readdir(binDir)) {
        if (entry.includes('.partial-')) await rm(join(binDir, entry), { force: true });
      }
      for (const spec of specs) {
        const out = join(binDir, spec.file);
        if (existsSync(out)) continue;
        await buildGoBinary({
          name: spec.file,
          moduleDir: join(modulesDir, spec.module),
          pkg: spec.pkg,
          ldflags: spec.ldflags,
          out,
          onProgress: progress,
          signal: options.signal,
          hint:
            'If the installed Go cannot compile this release, see ' +
            'test/controlplane/README.md for the supported versions.',
        });
      }
    },
  );
}

async function fingerprint(modulesDir: string, group: BinaryGroup): Promise<string> {
  const hash = createHash('sha256');
  for (const mod of group.modules) {
    for (const file of ['go.mod', 'go.sum']) {
      hash.update(await readFile(join(modulesDir, mod, file)));
    }
  }
  for (const spec of group.specs) hash.update(`${spec.pkg} ${spec.ldflags}\n`);
  return hash.digest('hex').slice(0, 12);
}
