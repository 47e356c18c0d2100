/**
 * `planwright start` without a cluster (or with --local, --bare): the embedded local control
 * plane, started, described for the person at the terminal, and stopped when the run ends.
 */
import { dirname, join } from 'node:path';
import { LiteKubeConfig, type KubeConfig } from '../kube/index.ts';
import {
  KUBERNETES_VERSION,
  repositoryRoot,
  startLocalCluster,
  type LocalCluster,
  type NodeKind,
} from '../localcluster/index.ts';
import type { LineWriter } from './io.ts';

/** What the nodes of a local cluster are, one line per kind. */
function describeNodes(cluster: LocalCluster): string[] {
  if (cluster.mode === 'bare') {
    return ['  mode:        bare (no controllers, scheduler or nodes: pods never run)'];
  }
  const real = cluster.realNodes?.length ? cluster.nodes.filter((n) => !n.startsWith('kwok-')) : [];
  const kwok = cluster.nodes.filter((n) => !real.includes(n));
  const lines: string[] = [];
  if (real.length > 0) {
    lines.push(
      `  nodes:       ${real.join(', ')} (real: kubelet + containerd; images from the local ` +
        `registry ${cluster.imageRegistry ?? ''}: busybox, alpine, nginx)`,
    );
  }
  if (kwok.length > 0) {
    lines.push(
      `  ${real.length > 0 ? '            ' : 'nodes:      '} ${kwok.join(', ')} (simulated by kwok: ` +
        (real.length > 0
          ? 'pods whose images the local registry lacks; no containers)'
          : 'pods run, no containers)'),
    );
  }
  return lines;
}

/** What a person at the terminal can do with the local control plane just started. */
function localWelcome(cluster: LocalCluster, seconds: string, io: LineWriter): void {
  io.out('');
  io.out(`Planwright local control plane is up (${seconds} s).`);
  io.out(`  API server:  ${cluster.server} (Kubernetes ${KUBERNETES_VERSION})`);
  io.out(`  kubeconfig:  ${cluster.kubeconfigPath}`);
  for (const line of describeNodes(cluster)) io.out(line);
  const examples = join(repositoryRoot(), 'examples');
  io.out(
    'Try it from another terminal (`npm link` once puts planwright and kubectl-kudo on PATH):',
  );
  io.out(`  export KUBECONFIG=${cluster.kubeconfigPath}`);
  io.out(
    `  export PATH="${dirname(cluster.binaries.kubectl)}:$PATH"   # kubectl ${KUBERNETES_VERSION}`,
  );
  // hello-web's Deployment needs pods to run; the bare control plane has no nodes.
  const example = cluster.mode === 'workloads' ? 'hello-web' : 'hello-config';
  io.out('Install the example package and watch its deploy plan reach COMPLETE:');
  io.out(`  kubectl kudo install ${join(examples, example)} --instance hello --wait`);
  io.out('  kubectl kudo plan status --instance hello');
  if (cluster.mode === 'workloads') {
    io.out('  kubectl port-forward service/hello 8080:80   # the page: http://localhost:8080');
  }
  io.out('  kubectl kudo update --instance hello -p message=hi --wait');
  io.out(`  kubectl kudo get all`);
  io.out('Press Ctrl-C to stop; the control plane and its files are removed.');
}

/**
 * Starts the embedded local control plane, says how to use it, and runs `run` against it
 * until that ends; the control plane and its files are removed after.
 */
export async function onLocalCluster(
  options: { readonly bare: boolean; readonly nodes?: NodeKind },
  io: LineWriter,
  signal: AbortSignal,
  run: (kubeConfig: KubeConfig) => Promise<number>,
): Promise<number> {
  const mode = options.bare ? 'bare' : 'workloads';
  io.err(`Starting the embedded local control plane (${mode}).`);
  const started = Date.now();
  const cluster = await startLocalCluster({
    mode,
    nodeKind: options.nodes ?? 'mixed',
    onProgress: (line) => io.err(`  ${line}`),
    signal,
  });
  try {
    localWelcome(cluster, ((Date.now() - started) / 1000).toFixed(1), io);
    const kubeConfig = new LiteKubeConfig();
    kubeConfig.loadFromFile(cluster.kubeconfigPath);
    // Ctrl-C while Planwright is still starting is a normal stop, not a failure.
    const code = await run(kubeConfig).catch((err: unknown) => {
      if (signal.aborted) return 0;
      throw err;
    });
    io.err('Stopping the local control plane…');
    return code;
  } finally {
    await cluster.stop();
    io.err('Stopped.');
  }
}
