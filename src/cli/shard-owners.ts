/**
 * Who reconciles each Instance, for `kubectl kudo get instances -o wide`: its shard (the
 * label Planwright's webhook writes) and the replica the shard's Lease names. The Leases live
 * in the namespace of the installation the webhook registration belongs to; a user who may
 * not read them (or an installation that has not labelled the Instance yet) sees why.
 */
import type { KubeClient } from '../kube/index.ts';
import { SHARD_LABEL, type Instance } from '../kudo/api/index.ts';
import { readRegistration } from './registration.ts';

/** The ring name the manager uses (runtime ShardingSettings.name's default). */
const RING = 'planwright';

export interface ShardOwner {
  readonly name: string;
  readonly shard: string;
  readonly owner: string;
}

/** One row per Instance: name, shard, the replica running the shard. */
export async function shardOwners(
  client: KubeClient,
  instances: readonly Instance[],
  signal?: AbortSignal,
): Promise<ShardOwner[]> {
  const holders = await shardHolders(client, signal);
  return instances.map((i) => {
    const shard = i.metadata.labels?.[SHARD_LABEL];
    const name = i.metadata.name ?? '';
    if (shard === undefined) return { name, shard: '<none>', owner: '<not labelled yet>' };
    const owner =
      typeof holders === 'string' ? holders : holders.get(shard) || '<no replica runs it>';
    return { name, shard, owner };
  });
}

/** shard → holder, or why they cannot be told. */
async function shardHolders(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<Map<string, string> | string> {
  let namespace: string | undefined;
  try {
    const found = await readRegistration(client, signal);
    if (found.state === 'present') {
      namespace =
        found.installation ??
        (found.target.kind === 'service' ? found.target.namespace : undefined);
    }
  } catch {
    // Unreadable: said below.
  }
  if (namespace === undefined) return '<unknown: no installation registered>';
  try {
    const leases = await client.request<{
      items?: Array<{ metadata?: { name?: string }; spec?: { holderIdentity?: string } }>;
    }>({
      path: `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`,
      query: {
        labelSelector: `planwright.dev/shard-ring=${RING},planwright.dev/shard-ring-role=shard`,
      },
      signal,
    });
    const prefix = `${RING}-shard-`;
    return new Map(
      (leases.items ?? []).map((l) => [
        (l.metadata?.name ?? '').slice(prefix.length),
        l.spec?.holderIdentity ?? '',
      ]),
    );
  } catch {
    return `<unknown: cannot read Leases in ${namespace}>`;
  }
}
