/**
 * The shard label of an admitted Instance (SHARD_LABEL, see api/shard.ts): on CREATE the
 * shard its key hashes to, whatever the request said; on UPDATE the stored one, so that no
 * write but Planwright's own reassignment moves an Instance between shards — a shard changes
 * hands only through its Lease, after its running work was recorded. A stored label that names
 * no shard of this installation (none yet, an older shard count) is replaced by the computed
 * one unless a live replica still runs that shard.
 */
import { shardLabelFor, shardOf, type ShardView } from '../../runtime/index.ts';
import type { JsonPatchOperation } from '../../server/index.ts';
import { instanceShardKey, SHARD_LABEL, type Instance } from '../api/index.ts';

export interface AdmissionSharding {
  /** This replica's view of the shards (their count, which a live replica holds). */
  readonly shards: ShardView;
}

/** The JSON patch that gives `instance` the shard label it must carry (none when it does). */
export function shardLabelPatch(
  instance: Instance,
  old: Instance | undefined,
  sharding: AdmissionSharding,
): JsonPatchOperation[] {
  const label = SHARD_LABEL;
  const want = old
    ? (stored(old, sharding) ?? shardOf(instanceShardKey(instance), sharding.shards.shards.length))
    : shardOf(instanceShardKey(instance), sharding.shards.shards.length);
  const labels = instance.metadata.labels;
  if (labels?.[label] === want) return [];
  return labels
    ? [
        {
          op: 'add',
          path: `/metadata/labels/${label.replace(/~/g, '~0').replace(/\//g, '~1')}`,
          value: want,
        },
      ]
    : [{ op: 'add', path: '/metadata/labels', value: { [label]: want } }];
}

/** The stored label when it may stay (see shardLabelFor). */
function stored(old: Instance, sharding: AdmissionSharding): string | undefined {
  const current = old.metadata.labels?.[SHARD_LABEL];
  if (current === undefined) return undefined;
  const replacement = shardLabelFor(old, {
    label: SHARD_LABEL,
    shards: sharding.shards,
    keyOf: instanceShardKey,
  });
  return replacement === undefined ? current : undefined;
}
