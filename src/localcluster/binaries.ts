import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { assertGoAvailable, buildGoBinary } from './go-build.ts';
import { withDirectoryLock } from './lock.ts';
import { cacheRoot, repositoryRoot } from './paths.ts';
import { ETCD_VERSION, KUBERNETES_VERSION } from './versions.ts';

/** Absolute paths of the control-plane executables. */
export interface ControlPlaneBinaries {
  readonly kubeApiServer: string;
  readonly etcd: string;
  readonly kubectl: string;
}

export interface EnsureBinariesOptions {
  /** Progress lines for a person watching ("building kube-apiserver … 2m10s"). */
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
}

interface BinarySpec {
  readonly name: keyof ControlPlaneBinaries;
  readonly file: string;
  readonly module: 'kubernetes' | 'etcd';
  readonly pkg: string;
  readonly ldflags: string;
}

const versionLdflags = (() => {
  const [major, minor] = KUBERNETES_VERSION.replace(/^v/, '').split('.');
  const vars = {
    gitVersion: KUBERNETES_VERSION,
    gitMajor: major ?? '',
    gitMinor: minor ?? '',
    gitTreeState: 'clean',
  };
  // kube-apiserver reports component-base's version; kubectl's client half reads client-go's.
  return ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']
    .flatMap((pkg) => Object.entries(vars).map(([k, v]) => `-X ${pkg}.${k}=${v}`))
    .join(' ');
})();

const SPECS: readonly BinarySpec[] = [
  {
    name: 'etcd',
    file: 'etcd',
    module: 'etcd',
    pkg: 'go.etcd.io/etcd/server/v3',
    ldflags: '-s -w',
  },
  {
    name: 'kubeApiServer',
    file: 'kube-apiserver',
    module: 'kubernetes',
    pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
    ldflags: `-s -w ${versionLdflags}`,
  },
  {
    name: 'kubectl',
    file: 'kubectl',
    module: 'kubernetes',
    pkg: 'k8s.io/kubernetes/cmd/kubectl',
    ldflags: `-s -w ${versionLdflags}`,
  },
];

/**
 * Builds kube-apiserver, kubectl and etcd from the Go wrapper modules in test/controlplane/
 * into a cache outside the clone, once: later calls (and other checkouts) reuse them. The
 * cache folder is named after the versions and a hash of the wrapper modules, so changing a
 * go.mod builds afresh. Builds run under a lock so parallel callers do not build twice.
 */
export async function ensureControlPlaneBinaries(
  options: EnsureBinariesOptions = {},
): Promise<ControlPlaneBinaries> {
  const progress = options.onProgress ?? (() => undefined);
  const modulesDir = join(repositoryRoot(), 'test', 'controlplane');
  const fingerprint = await fingerprintModules(modulesDir);
  const binDir = join(
    cacheRoot(),
    'controlplane',
    `${KUBERNETES_VERSION}-etcd${ETCD_VERSION}-${fingerprint}`,
  );
  const paths = Object.fromEntries(
    SPECS.map((s) => [s.name, join(binDir, s.file)]),
  ) as unknown as ControlPlaneBinaries;
  if (SPECS.every((s) => existsSync(join(binDir, s.file)))) return paths;

  assertGoAvailable('kube-apiserver, kubectl and etcd for the local control plane');
  await mkdir(binDir, { recursive: true });
  await withDirectoryLock(
    join(binDir, '.lock'),
    {
      signal: options.signal,
      onWait: (pid) => progress(`waiting for process ${pid}, which is building the control plane`),
    },
    async () => {
      // Partial outputs of a build that was killed: nobody else can be writing them now.
      for (const entry of await readdir(binDir)) {
        if (entry.includes('.partial-')) await rm(join(binDir, entry), { force: true });
      }
      for (const spec of SPECS) {
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
            'If the installed Go cannot compile this Kubernetes release, see ' +
            'test/controlplane/README.md for the supported pairs.',
        });
      }
    },
  );
  return paths;
}

async function fingerprintModules(modulesDir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const mod of ['kubernetes', 'etcd']) {
    for (const file of ['go.mod', 'go.sum']) {
      hash.update(await readFile(join(modulesDir, mod, file)));
    }
  }
  for (const spec of SPECS) hash.update(spec.ldflags);
  return hash.digest('hex').slice(0, 12);
}
