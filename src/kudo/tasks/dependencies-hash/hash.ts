/**
 * KUDO's `kudo.dev/dependencies-hash` (docs/packages.md "Pipe and KudoOperator tasks"): the
 * ConfigMaps and Secrets a pod template mounts or pulls images with, each reduced to a
 * 16-byte MD5 digest of a cleaned copy serialised as go-yaml v2 writes it, and the hash of
 * their concatenation in a fixed order. A changed ConfigMap thus changes the pod template,
 * which rolls the pods the next time the workload is applied.
 */
import { createHash } from 'node:crypto';
import type { ApplyObject } from '../../../kube/index.ts';
import { goYamlMarshal, type GoYamlValue } from '../../../gotemplate/index.ts';

export const ANNOTATION_DEPENDENCIES_HASH = 'kudo.dev/dependencies-hash';
/** On a ConfigMap/Secret: leave it out of the hash (its digest counts as zeros). */
export const ANNOTATION_SKIP_HASH = 'kudo.dev/skip-hash-calculation';
/** KUDO's record of what it applied; read from live objects KUDO applied before us. */
export const ANNOTATION_LAST_APPLIED = 'kudo.dev/last-applied-configuration';

/** The digest of a missing or skipped source: 16 zero bytes, hex. */
export const ZERO_DIGEST = '0'.repeat(32);

/** A ConfigMap or Secret a pod template depends on. */
export interface Dependency {
  readonly kind: 'ConfigMap' | 'Secret';
  readonly namespace: string;
  readonly name: string;
}

export function dependencyKey(d: Dependency): string {
  return `${d.kind}/${d.namespace}/${d.name}`;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function names(list: unknown, pick: (item: Json) => unknown): string[] {
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const item of list) {
    if (!isObject(item)) continue;
    const name = pick(item);
    if (typeof name === 'string' && name !== '') out.push(name);
  }
  return out;
}

/**
 * The dependencies of a pod template (`{metadata, spec}`), in the order the hash uses: by
 * kind (ConfigMap before Secret), namespace, name — group and version are the same for
 * both. `imagePullSecrets[].name`, `volumes[].configMap.name` and `volumes[].secret.secretName`;
 * nothing else (no projected volumes, env or envFrom), each once.
 */
export function podTemplateDependencies(template: unknown, namespace: string): Dependency[] {
  const spec = isObject(template) && isObject(template['spec']) ? template['spec'] : {};
  const found = new Map<string, Dependency>();
  const add = (kind: Dependency['kind'], name: string): void => {
    const d: Dependency = { kind, namespace, name };
    found.set(dependencyKey(d), d);
  };
  for (const n of names(spec['imagePullSecrets'], (s) => s['name'])) add('Secret', n);
  const volumes = spec['volumes'];
  for (const n of names(volumes, (v) => (isObject(v['configMap']) ? v['configMap']['name'] : '')))
    add('ConfigMap', n);
  for (const n of names(volumes, (v) => (isObject(v['secret']) ? v['secret']['secretName'] : '')))
    add('Secret', n);
  return [...found.values()].sort((a, b) =>
    a.kind !== b.kind
      ? a.kind < b.kind
        ? -1
        : 1
      : a.name === b.name
        ? 0
        : a.name < b.name
          ? -1
          : 1,
  );
}

const DROPPED_METADATA = [
  'namespace',
  'resourceVersion',
  'uid',
  'selfLink',
  'generateName',
  'creationTimestamp',
  'generation',
  'clusterName',
  'continue',
] as const;

/**
 * The object as KUDO hashed it: identity and server-managed fields removed or zeroed
 * (apiVersion and kind empty, annotations/owners/finalizers/managed fields emptied), so
 * only names, labels and content count.
 */
export function hashSource(obj: ApplyObject): Json {
  // Only the top level and metadata change: copy those two maps, share the rest (the
  // marshaller only reads it). A deep clone was most of this function's cost.
  const copy: Json = { ...obj };
  const meta: Json = isObject(copy['metadata']) ? { ...copy['metadata'] } : {};
  for (const field of DROPPED_METADATA) delete meta[field];
  meta['annotations'] = {};
  meta['ownerReferences'] = [];
  meta['finalizers'] = [];
  meta['managedFields'] = [];
  meta['deletionGracePeriodSeconds'] = 0;
  meta['remainingItemCount'] = 0;
  copy['metadata'] = meta;
  copy['apiVersion'] = '';
  copy['kind'] = '';
  return copy;
}

/** The text KUDO's digest covers: go-yaml v2's output for `{object: <hash source>}`. */
export function hashSourceText(obj: ApplyObject): string {
  return goYamlMarshal({ object: hashSource(obj) as GoYamlValue });
}

/** Hex MD5 of an object's hash source; zeros when it asks to be skipped. */
export function objectDigest(obj: ApplyObject): string {
  if (obj.metadata?.annotations && Object.hasOwn(obj.metadata.annotations, ANNOTATION_SKIP_HASH)) {
    return ZERO_DIGEST;
  }
  return createHash('md5').update(hashSourceText(obj), 'utf8').digest('hex');
}

/** The hash of the digests, in dependency order: hex MD5 of the concatenated 16-byte digests. */
export function combineDigests(digests: readonly string[]): string {
  const hash = createHash('md5');
  for (const d of digests) hash.update(Buffer.from(d, 'hex'));
  return hash.digest('hex');
}

/**
 * The form of a live object KUDO would have hashed: the JSON in its
 * `kudo.dev/last-applied-configuration` annotation (written by KUDO when it applied it), else
 * the live object itself.
 */
export function liveHashForm(live: ApplyObject): ApplyObject {
  const text = live.metadata?.annotations?.[ANNOTATION_LAST_APPLIED];
  if (text === undefined) return live;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : live;
  } catch {
    return live;
  }
}
