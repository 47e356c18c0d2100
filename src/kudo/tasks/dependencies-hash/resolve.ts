/**
 * The dependencies hash of one pod template, from the best source of each dependency's
 * digest: the object of the same kind/namespace/name rendered by the same task (as
 * decorated), else the digest the inventory recorded when Planwright applied it, else the
 * live object (its `kudo.dev/last-applied-configuration` form when KUDO applied it). A
 * dependency that does not exist counts as 16 zero bytes, as in KUDO.
 */
import type { ApplyObject } from '../../../kube/index.ts';
import {
  combineDigests,
  dependencyKey,
  liveHashForm,
  objectDigest,
  podTemplateDependencies,
  ANNOTATION_SKIP_HASH,
  ZERO_DIGEST,
  type Dependency,
} from './hash.ts';

export interface DigestSources {
  /** Objects rendered by the same task, by {@link dependencyKey}. */
  readonly inTask: ReadonlyMap<string, ApplyObject>;
  /** The digest recorded in the inventory when the object was applied (hex), if any. */
  recorded(dependency: Dependency): string | undefined;
  /** The live object; undefined when it does not exist. */
  live(dependency: Dependency, signal: AbortSignal): Promise<ApplyObject | undefined>;
}

/** The key of a ConfigMap/Secret as a dependency, or undefined for other objects. */
export function dependencyKeyOf(obj: ApplyObject): string | undefined {
  if (obj.apiVersion !== 'v1' || (obj.kind !== 'ConfigMap' && obj.kind !== 'Secret')) {
    return undefined;
  }
  return dependencyKey({
    kind: obj.kind,
    namespace: obj.metadata?.namespace ?? '',
    name: obj.metadata?.name ?? '',
  });
}

async function digestOf(
  dependency: Dependency,
  sources: DigestSources,
  signal: AbortSignal,
): Promise<string> {
  const same = sources.inTask.get(dependencyKey(dependency));
  if (same) return objectDigest(same);
  const recorded = sources.recorded(dependency);
  if (recorded !== undefined) return recorded;
  const live = await sources.live(dependency, signal);
  if (!live) return ZERO_DIGEST;
  if (live.metadata?.annotations && Object.hasOwn(live.metadata.annotations, ANNOTATION_SKIP_HASH))
    return ZERO_DIGEST;
  return objectDigest(liveHashForm(live));
}

/**
 * The hash for a pod template in `namespace`, or undefined when it has no dependencies (then
 * the annotation is not written at all).
 */
export async function dependenciesHash(
  template: unknown,
  namespace: string,
  sources: DigestSources,
  signal: AbortSignal,
): Promise<string | undefined> {
  const dependencies = podTemplateDependencies(template, namespace);
  if (dependencies.length === 0) return undefined;
  const digests = await Promise.all(dependencies.map((d) => digestOf(d, sources, signal)));
  return combineDigests(digests);
}
