// `kubectl exec` into simulated pods. kwok runs no containers: it runs an exec request as a
// local command, in the working directory an Exec object (kwok.x-k8s.io/v1alpha1, named after
// the pod) gives. Here that directory is the pod's simulated root filesystem, and `stat` and
// `tar` — the commands a Pipe task runs — are small stand-ins first on kwok's PATH (the
// cluster's execBinDir) that read absolute paths below it. Everything else is real: the
// API server's pods/exec subresource, the WebSocket/SPDY streams, kwok's kubelet server, the
// exit codes and the bytes.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rename, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { kubeConfig, testCluster } from './cluster.ts';

/** The real program (not a stand-in in `exclude`) of that name on this machine's PATH. */
function realProgram(name: string, exclude: string): string {
  const path = (process.env['PATH'] ?? '')
    .split(':')
    .filter((d) => d !== '' && d !== exclude)
    .join(':');
  return execFileSync('sh', ['-c', `command -v ${name}`], {
    encoding: 'utf8',
    env: { ...process.env, PATH: path },
  }).trim();
}

// Absolute arguments become paths below the working directory (the simulated root).
function statShim(real: string): string {
  return `#!/bin/sh
# Planwright test stand-in for a container's stat: the working directory is the pod's root.
root=$PWD
n=$#
while [ "$n" -gt 0 ]; do
  a=$1; shift; n=$((n - 1))
  case $a in /*) a=$root$a ;; esac
  set -- "$@" "$a"
done
exec ${real} "$@"
`;
}

/** While this file lies in a pod's simulated root, tar waits (a copy caught in the middle). */
export const HOLD_TAR = '.planwright-hold-tar';
/** tar writes this file into the pod's root when it starts waiting for HOLD_TAR to go. */
export const TAR_HELD = '.planwright-tar-held';
/** tar appends one line per run to this file in the pod's root. */
export const TAR_RUNS = '.planwright-tar-runs';

// tar stores member names without the leading "/", as GNU and busybox tar do for /abs paths.
function tarShim(real: string): string {
  return `#!/bin/sh
# Planwright test stand-in for a container's tar: the working directory is the pod's root.
echo "$*" >> "$PWD/${TAR_RUNS}"
if [ -e "$PWD/${HOLD_TAR}" ]; then
  : > "$PWD/${TAR_HELD}"
  i=0
  while [ -e "$PWD/${HOLD_TAR}" ] && [ "$i" -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
fi
n=$#
while [ "$n" -gt 0 ]; do
  a=$1; shift; n=$((n - 1))
  case $a in /*) a=\${a#/} ;; esac
  set -- "$@" "$a"
done
exec ${real} "$@"
`;
}

/** A workloads cluster: where to reach it, and the folder first on its kwok's PATH. */
export interface ExecCluster {
  readonly kubeconfigPath: string;
  readonly execBinDir?: string;
}

const installed = new Map<string, Promise<void>>();

/** Puts the stand-ins into a cluster's execBinDir (once; atomic for parallel workers). */
export function installExecStandIns(cluster: ExecCluster = testCluster()): Promise<void> {
  const dir = cluster.execBinDir;
  if (!dir) {
    return Promise.reject(
      new Error(
        `the cluster of ${cluster.kubeconfigPath} has no execBinDir: is it a workloads cluster?`,
      ),
    );
  }
  let done = installed.get(dir);
  done ??= (async () => {
    for (const [name, shim] of [
      ['stat', statShim],
      ['tar', tarShim],
    ] as const) {
      const tmp = join(dir, `.${name}.${process.pid}`);
      await writeFile(tmp, shim(realProgram(name, dir)));
      await chmod(tmp, 0o755);
      await rename(tmp, join(dir, name));
    }
  })();
  installed.set(dir, done);
  return done;
}

/**
 * Gives pod `namespace/pod` (existing or not yet) a simulated root filesystem holding
 * `files` (absolute path → content, or a symlink target with `{ symlink }`), and returns it.
 * `cluster`: the shared cluster of the test run unless another (dedicated) one is named.
 */
export async function simulatePodFiles(
  namespace: string,
  pod: string,
  files: Readonly<Record<string, string | Buffer | { symlink: string }>>,
  cluster: ExecCluster = testCluster(),
): Promise<string> {
  await installExecStandIns(cluster);
  const root = await mkdtemp(join(tmpdir(), 'planwright-pod-root-'));
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    if (typeof content === 'object' && !Buffer.isBuffer(content)) {
      await symlink(content.symlink, target);
    } else await writeFile(target, content);
  }
  const custom = kubeConfig(cluster.kubeconfigPath).makeApiClient(k8s.CustomObjectsApi);
  await custom.createNamespacedCustomObject({
    group: 'kwok.x-k8s.io',
    version: 'v1alpha1',
    namespace,
    plural: 'execs',
    body: {
      apiVersion: 'kwok.x-k8s.io/v1alpha1',
      kind: 'Exec',
      metadata: { name: pod },
      spec: { execs: [{ local: { workDir: root } }] },
    },
  });
  return root;
}
