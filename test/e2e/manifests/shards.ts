// The shard ring of an in-cluster installation as the e2e tests look at it: which replica (pod)
// the Lease of each shard names, and how many Instances each replica reports in its shards'
// caches (its /metrics).
import type { KubeClient } from '../../../src/kube/index.ts';
import { metrics, sampleSum } from './replicas.ts';
import type { PlanwrightPod } from './pods.ts';

/** The manifests' shard count (the Deployment's `--shards`). */
export const SHARDS = 12;

/** shard → the member identity its Lease names ('' when free). */
export async function shardHolders(
  admin: KubeClient,
  namespace: string,
): Promise<Map<string, string>> {
  const leases = await admin.request<{
    items: Array<{ metadata: { name: string }; spec?: { holderIdentity?: string } }>;
  }>({
    path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
    query: {
      labelSelector: 'planwright.dev/shard-ring=planwright,planwright.dev/shard-ring-role=shard',
    },
  });
  return new Map(
    leases.items.map((l) => [
      l.metadata.name.replace(/^planwright-shard-/, ''),
      l.spec?.holderIdentity ?? '',
    ]),
  );
}

/** The pod a member identity belongs to (identities are the pod's name and a suffix). */
export function podOfMember(
  pods: readonly PlanwrightPod[],
  identity: string,
): PlanwrightPod | undefined {
  return pods.find((p) => identity.startsWith(`${p.name}-`));
}

/** pod name → the shards whose Lease names one of its members. */
export function shardsByPod(
  pods: readonly PlanwrightPod[],
  holders: ReadonlyMap<string, string>,
): Map<string, string[]> {
  const out = new Map<string, string[]>(pods.map((p) => [p.name, []]));
  for (const [shard, holder] of holders) {
    const pod = podOfMember(pods, holder);
    if (pod) out.get(pod.name)?.push(shard);
  }
  return out;
}

/**
 * Whether the `pods` (all live) run all shards between them, each its even share, as the
 * Leases say and as each replica reports (`planwright_shard_owned`).
 */
export async function evenlyShared(
  admin: KubeClient,
  namespace: string,
  pods: readonly PlanwrightPod[],
  scrape: (pod: PlanwrightPod) => Promise<string>,
): Promise<boolean> {
  const byPod = shardsByPod(pods, await shardHolders(admin, namespace));
  const total = [...byPod.values()].reduce((n, s) => n + s.length, 0);
  if (total !== SHARDS) return false;
  const share = SHARDS / pods.length;
  for (const pod of pods) {
    if (byPod.get(pod.name)?.length !== share) return false;
    const owned = sampleSum(await scrape(pod), 'planwright_shard_owned');
    if (owned !== share) return false;
  }
  return true;
}

/** A replica's /metrics, through its pod address with a scraper's token. */
export function scraper(
  caPem: () => Promise<string>,
  token: () => Promise<string>,
): (pod: PlanwrightPod) => Promise<string> {
  return async (pod) => metrics({ host: pod.ip, port: 9443 }, await caPem(), await token());
}
