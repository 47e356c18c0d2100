/**
 * The subset of kustomize that manifests/ uses, so that `planwright init` installs exactly
 * what `kubectl apply -k manifests/` (or `-k manifests/cert-manager`) installs without needing
 * kubectl: `resources` (files and folders with their own kustomization) and `patches` that are
 * JSON 6902 operation lists with a `target`. Anything else in a kustomization is refused by
 * name rather than ignored. A test renders manifests/ both ways and compares.
 *
 * Why not a library: there is no kustomize for Node; the JSON patch itself is rfc6902's.
 *
 * @example
 * const objects = await renderKustomization('manifests/cert-manager');
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { applyPatch, type Operation } from 'rfc6902';
import { parse, parseAllDocuments } from 'yaml';
import type { ApplyObject } from '../kube/index.ts';

/** The names kustomize looks for, in its order. */
const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'patches']);

export class KustomizeError extends Error {
  override readonly name = 'KustomizeError';
  constructor(
    message: string,
    /** The kustomization file (or resource) the problem is in. */
    readonly file: string,
  ) {
    super(`${file}: ${message}`);
  }
}

interface PatchTarget {
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

interface PatchEntry {
  readonly path?: string;
  readonly patch?: string;
  readonly target?: PatchTarget;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function kustomizationFile(dir: string): string | undefined {
  return KUSTOMIZATION_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
}

/** The objects the kustomization in `dir` renders, in resource order. */
export async function renderKustomization(dir: string): Promise<ApplyObject[]> {
  return render(resolve(dir), []);
}

async function render(dir: string, visiting: readonly string[]): Promise<ApplyObject[]> {
  const file = kustomizationFile(dir);
  if (!file)
    throw new KustomizeError('no kustomization.yaml, kustomization.yml or Kustomization', dir);
  if (visiting.includes(dir)) {
    throw new KustomizeError(`includes itself (${[...visiting, dir].join(' → ')})`, file);
  }
  const spec: unknown = parse(await readFile(file, 'utf8'));
  if (!isRecord(spec)) throw new KustomizeError('is not a map', file);
  for (const key of Object.keys(spec)) {
    if (!SUPPORTED.has(key)) {
      throw new KustomizeError(
        `field "${key}" is not supported here (Planwright reads resources and JSON 6902 patches); render it with kubectl kustomize instead`,
        file,
      );
    }
  }
  const objects: ApplyObject[] = [];
  for (const entry of list(spec['resources'], 'resources', file)) {
    if (typeof entry !== 'string') throw new KustomizeError('resources must be paths', file);
    const path = resolve(dir, entry);
    if (!existsSync(path)) throw new KustomizeError(`resource ${entry} does not exist`, file);
    if ((await stat(path)).isDirectory()) {
      objects.push(...(await render(path, [...visiting, dir])));
    } else {
      objects.push(...(await readObjects(path)));
    }
  }
  for (const entry of list(spec['patches'], 'patches', file)) {
    if (!isRecord(entry)) throw new KustomizeError('each patch must be a map', file);
    await applyEntry(objects, entry, dir, file);
  }
  return objects;
}

function list(value: unknown, field: string, file: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new KustomizeError(`${field} must be a list`, file);
  return value;
}

async function readObjects(path: string): Promise<ApplyObject[]> {
  const out: ApplyObject[] = [];
  for (const doc of parseAllDocuments(await readFile(path, 'utf8'))) {
    if (doc.errors[0]) throw new KustomizeError(doc.errors[0].message, path);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isRecord(value) || typeof value['kind'] !== 'string') {
      throw new KustomizeError('a document is not a Kubernetes object', path);
    }
    out.push(value);
  }
  return out;
}

function groupOf(obj: ApplyObject): { group: string; version: string } {
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function matches(obj: ApplyObject, target: PatchTarget): boolean {
  const { group, version } = groupOf(obj);
  return (
    (target.group === undefined || target.group === group) &&
    (target.version === undefined || target.version === version) &&
    (target.kind === undefined || target.kind === obj.kind) &&
    (target.name === undefined || target.name === obj.metadata?.name) &&
    (target.namespace === undefined || target.namespace === obj.metadata?.namespace)
  );
}

async function applyEntry(
  objects: ApplyObject[],
  entry: PatchEntry,
  dir: string,
  file: string,
): Promise<void> {
  if (!entry.target) throw new KustomizeError('a patch needs a target', file);
  const text =
    entry.patch ??
    (entry.path !== undefined ? await readFile(resolve(dir, entry.path), 'utf8') : undefined);
  if (text === undefined) throw new KustomizeError('a patch needs patch or path', file);
  const operations: unknown = parse(text);
  if (!Array.isArray(operations)) {
    throw new KustomizeError(
      'only JSON 6902 patches (a list of operations) are supported here, not strategic merge patches',
      file,
    );
  }
  const targets = objects.filter((o) => matches(o, entry.target ?? {}));
  if (targets.length === 0) {
    throw new KustomizeError(
      `patch target ${JSON.stringify(entry.target)} matches no resource`,
      file,
    );
  }
  for (const target of targets) {
    const results = applyPatch(target, operations as Operation[]);
    const failed = results.findIndex((r) => r !== null);
    if (failed >= 0) {
      const op = operations[failed] as { op?: string; path?: string };
      throw new KustomizeError(
        `patch operation ${failed + 1} (${op.op ?? '?'} ${op.path ?? '?'}) failed on ${target.kind ?? ''}/${target.metadata?.name ?? ''}: ${results[failed]?.name ?? 'error'}`,
        file,
      );
    }
  }
}
