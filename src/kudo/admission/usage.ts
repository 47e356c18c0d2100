/**
 * Which Instances use an OperatorVersion, and which OperatorVersions belong to an Operator:
 * what the validating webhooks for OperatorVersions and Operators ask before a delete or a
 * spec change. The shared caches answer once synced; until then (or without them) one bounded
 * live list does. Admission never writes.
 *
 * See examples/api/kudo.ts.
 */
import type { KubeClient } from '../../kube/index.ts';
import { deadlineSignal } from '../../kube/index.ts';
import {
  instanceOperatorVersionKeys,
  INSTANCES_BY_OPERATOR_VERSION,
  operatorVersionRef,
  type NamespacedName,
  KUDO_GROUP,
  KUDO_VERSION,
  type Instance,
  type OperatorVersion,
} from '../api/index.ts';
import { isWellFormed } from './source.ts';

/**
 * What the Instance cache behind {@link CachedKudoUsage} keeps of each Instance: its name and
 * the OperatorVersion it names — all a usage answer needs (the refusals name the Instances).
 * The full Instances live only in the caches of the shards a replica reconciles, so every
 * replica's admission holds a few hundred bytes per Instance of the cluster, not the whole
 * object.
 */
export const INSTANCE_USAGE_VIEW = {
  name: 'operatorversion-refs',
  fn: (object: { readonly metadata?: unknown; readonly spec?: unknown }) => {
    const instance = object as Instance;
    const meta = instance.metadata;
    const ref = instance.spec?.operatorVersion;
    return {
      apiVersion: instance.apiVersion,
      kind: instance.kind,
      metadata: {
        name: meta?.name,
        namespace: meta?.namespace,
        uid: meta?.uid,
        resourceVersion: meta?.resourceVersion,
      },
      spec: ref ? { operatorVersion: { name: ref.name, namespace: ref.namespace } } : {},
    };
  },
} as const;

export interface KudoUsage {
  /** Instances (any namespace) whose spec.operatorVersion names `ov`. */
  instancesUsing(ov: NamespacedName, signal: AbortSignal): Promise<Instance[]>;
  /** OperatorVersions in `namespace` whose spec.operator.name is `operator`. */
  operatorVersionsOf(
    namespace: string,
    operator: string,
    signal: AbortSignal,
  ): Promise<OperatorVersion[]>;
}

/** The part of a runtime cache this source reads. */
export interface UsageCache<T> {
  readonly isSynced: boolean;
  list(namespace?: string): T[];
  byIndex(name: string, value: string): T[];
  addIndex(name: string, fn: (obj: T) => readonly string[]): void;
}

export class UsageLookupError extends Error {
  override readonly name = 'UsageLookupError';
  constructor(what: string, cause: unknown) {
    super(
      `could not list ${what}: ${cause instanceof Error ? cause.message : String(cause)}; try again`,
      { cause },
    );
  }
}

export interface CachedKudoUsageOptions {
  /** The shared Instance cache, once acquired. */
  readonly instances: () => UsageCache<Instance> | undefined;
  /** The shared OperatorVersion cache, once acquired. */
  readonly operatorVersions: () => UsageCache<OperatorVersion> | undefined;
  readonly client: KubeClient;
  /** Bound on the whole live list (all pages); keep it well under the webhook timeout. */
  readonly timeoutMs: number;
  /** Page size of a live list. Default 500. */
  readonly pageSize?: number;
}

interface ListPage<T> {
  readonly items?: T[];
  readonly metadata?: { readonly continue?: string };
}

export class CachedKudoUsage implements KudoUsage {
  constructor(private readonly options: CachedKudoUsageOptions) {}

  async instancesUsing(ov: NamespacedName, signal: AbortSignal): Promise<Instance[]> {
    const cache = this.options.instances();
    if (cache?.isSynced) {
      cache.addIndex(INSTANCES_BY_OPERATOR_VERSION, instanceOperatorVersionKeys);
      return cache.byIndex(INSTANCES_BY_OPERATOR_VERSION, `${ov.namespace}/${ov.name}`);
    }
    // spec.operatorVersion.namespace may name another namespace: all namespaces are listed.
    const all = await this.list<Instance>(
      `/apis/${KUDO_GROUP}/${KUDO_VERSION}/instances`,
      'Instances',
      signal,
    );
    return all.filter((instance) => {
      const ref = operatorVersionRef(instance);
      return ref?.namespace === ov.namespace && ref.name === ov.name;
    });
  }

  async operatorVersionsOf(
    namespace: string,
    operator: string,
    signal: AbortSignal,
  ): Promise<OperatorVersion[]> {
    if (!isWellFormed(namespace)) return []; // no such namespace (see isWellFormed)
    const cache = this.options.operatorVersions();
    const inNamespace = cache?.isSynced
      ? cache.list(namespace)
      : await this.list<OperatorVersion>(
          `/apis/${KUDO_GROUP}/${KUDO_VERSION}/namespaces/${encodeURIComponent(namespace)}/operatorversions`,
          `OperatorVersions in namespace ${namespace}`,
          signal,
        );
    return inNamespace.filter((ov) => ov.spec?.operator?.name === operator);
  }

  private async list<T>(path: string, what: string, signal: AbortSignal): Promise<T[]> {
    const deadline = deadlineSignal(this.options.timeoutMs, signal);
    const out: T[] = [];
    let next: string | undefined;
    try {
      do {
        const page: ListPage<T> = await this.options.client.request<ListPage<T>>({
          path,
          query: { limit: this.options.pageSize ?? 500, continue: next },
          signal: deadline.signal,
          timeoutMs: this.options.timeoutMs,
        });
        out.push(...(page.items ?? []));
        next = page.metadata?.continue || undefined;
      } while (next);
    } catch (err) {
      throw new UsageLookupError(what, err);
    } finally {
      deadline.clear();
    }
    return out;
  }
}
