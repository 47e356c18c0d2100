// The Deployment's pods as the tests look at them: where they run, whether the kubelet finds
// them ready, and their logs (through the kubelet, as `kubectl logs`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_IMAGE } from '../../../src/cli/image.ts';
import type { KubeClient } from '../../../src/kube/index.ts';
import type { LocalCluster } from '../../../src/localcluster/index.ts';
import { PLANWRIGHT, runBuilt, type CliResult } from '../../integration/cli/built-cli.ts';
import { waitFor } from '../../support/wait.ts';
import type { DedicatedCluster } from './replicas.ts';

export interface PlanwrightPod {
  readonly name: string;
  readonly ip: string;
  readonly node: string;
  readonly image: string;
  readonly serviceAccount: string;
  /** The kubelet's Ready condition (its readiness probe of /readyz). */
  readonly ready: boolean;
  readonly restarts: number;
  readonly deleting: boolean;
}

interface PodView {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string; serviceAccountName?: string; containers: Array<{ image: string }> };
  status?: {
    podIP?: string;
    conditions?: Array<{ type: string; status: string }>;
    containerStatuses?: Array<{ restartCount: number }>;
  };
}

/** The pods of the Deployment `planwright` (label app.kubernetes.io/name=planwright). */
export async function planwrightPods(
  admin: KubeClient,
  namespace: string,
): Promise<PlanwrightPod[]> {
  const list = await admin.request<{ items: PodView[] }>({
    path: `/api/v1/namespaces/${namespace}/pods`,
    query: { labelSelector: 'app.kubernetes.io/name=planwright' },
  });
  return list.items.map((p) => ({
    name: p.metadata.name,
    ip: p.status?.podIP ?? '',
    node: p.spec.nodeName ?? '',
    image: p.spec.containers[0]?.image ?? '',
    serviceAccount: p.spec.serviceAccountName ?? '',
    ready: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    restarts: p.status?.containerStatuses?.[0]?.restartCount ?? 0,
    deleting: p.metadata.deletionTimestamp !== undefined,
  }));
}

/**
 * `planwright init --image <the default image> <flags> --wait` onto the cluster, as users run
 * it (the built CLI); the child gets `waitSeconds` and a little more to finish.
 */
export function initWithImage(
  cluster: LocalCluster,
  options: { readonly flags?: readonly string[]; readonly waitSeconds: number },
): Promise<CliResult> {
  const flags = options.flags ?? [];
  return runBuilt(
    PLANWRIGHT,
    [
      'init',
      '--kubeconfig',
      cluster.kubeconfigPath,
      '--image',
      DEFAULT_IMAGE,
      ...flags,
      '--wait',
      '--wait-time',
      String(options.waitSeconds),
    ],
    {
      timeoutMs: (options.waitSeconds + 40) * 1000,
      env: { KUDO_HOME: join(cluster.workDir, 'kudo-home') },
    },
  );
}

/**
 * Waits for the Deployment's two pods, both Ready on the real node; `seen` gets every list read
 * (so a failure's diagnostics can name the pods as they were last seen).
 */
export async function twoReadyPods(
  admin: KubeClient,
  options: { readonly timeoutMs: number; readonly seen: (pods: PlanwrightPod[]) => void },
): Promise<PlanwrightPod[]> {
  return waitFor(
    'the Deployment available with 2 replicas on the real node',
    async () => {
      const pods = await planwrightPods(admin, 'planwright-system');
      options.seen(pods);
      return pods.length === 2 && pods.every((p) => p.ready && p.node === 'node-1')
        ? pods
        : undefined;
    },
    { timeoutMs: options.timeoutMs, intervalMs: 500 },
  );
}

/** The last lines of a pod's log (empty when the kubelet has none). */
export async function podLogs(cluster: DedicatedCluster, name: string): Promise<string> {
  const res = await cluster.kubectl(['logs', '-n', 'planwright-system', name, '--tail=80']);
  return `${res.stdout}${res.stderr}`;
}

/**
 * The host pid of a pod's Planwright process on the real node: the process running
 * `dist/main.js start` whose environment names the pod as its HOSTNAME (the kubelet sets it).
 */
export function containerPid(podName: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!cmdline.includes('dist/main.js')) continue;
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (env.includes(`HOSTNAME=${podName}`)) return Number(entry);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  throw new Error(`no process of pod ${podName} on this machine`);
}
