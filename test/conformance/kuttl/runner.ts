import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiError,
  collectionPath,
  objectPath,
  parseApiVersion,
  type KubeClient,
  type ResourceMapper,
  type ResourceMapping,
} from '../../../src/kube/index.ts';
import { readManifests, type KuttlCase, type KuttlStep, type ManifestObject } from './discover.ts';
import { subsetMismatch } from './match.ts';

/** How the runner reaches the cluster: a raw client and its discovery-backed mapper. */
export interface ClusterAccess {
  readonly client: KubeClient;
  readonly mapper: ResourceMapper;
}

export interface RunOptions {
  /** Namespace the case runs in; objects without one land here. */
  readonly namespace: string;
  /** How long each step's assert may take to match. kuttl's default is 30 s. */
  readonly stepTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

/** A step that did not reach its asserted state, with the last difference seen. */
export class KuttlStepError extends Error {
  override readonly name = 'KuttlStepError';
  constructor(
    readonly caseName: string,
    readonly step: number,
    detail: string,
  ) {
    super(`case ${caseName}, step ${step}: ${detail}`);
  }
}

/**
 * Runs a kuttl case step by step against a real cluster: apply (create, or JSON merge patch
 * of the given fields when the object exists, as kuttl does), then wait for the assert file
 * to match and check that no object of the errors file exists.
 */
export async function runCase(
  access: ClusterAccess,
  testCase: KuttlCase,
  options: RunOptions,
): Promise<void> {
  for (const step of testCase.steps) {
    options.log?.(`${testCase.name} step ${step.index}`);
    for (const file of step.apply) {
      for (const obj of readManifests(file)) await applyObject(access, obj, options.namespace);
    }
    await waitForStep(access, testCase, step, options);
  }
}

/** Applies one manifest the kuttl way. Exported for the manifests installed before the cases. */
export async function applyObject(
  access: ClusterAccess,
  obj: ManifestObject,
  namespace: string,
): Promise<void> {
  const { mapping, ns } = await locate(access, obj, namespace);
  const name = obj.metadata.name;
  if (!name) throw new Error(`${obj.kind} without metadata.name cannot be applied`);
  const body = ns === undefined ? obj : { ...obj, metadata: { ...obj.metadata, namespace: ns } };
  // Look first, as kuttl does: a create of a partial object would be judged by admission
  // webhooks (and refused as incomplete) before the apiserver reports that it already exists.
  const exists = await access.client
    .request({ path: objectPath(mapping, name, ns) })
    .then(() => true)
    .catch((err: unknown) => {
      if (err instanceof ApiError && err.statusCode === 404) return false;
      throw err;
    });
  if (!exists) {
    try {
      await access.client.request({ method: 'POST', path: collectionPath(mapping, ns), body });
      return;
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 409) throw err;
    }
  }
  await access.client.request({
    method: 'PATCH',
    path: objectPath(mapping, name, ns),
    body,
    contentType: 'application/merge-patch+json',
  });
}

/** The REST mapping of an object and the namespace it lives in (undefined: cluster-scoped). */
async function locate(
  access: ClusterAccess,
  obj: ManifestObject,
  namespace: string,
): Promise<{ mapping: ResourceMapping; ns: string | undefined }> {
  const mapping = await access.mapper.resolve({
    ...parseApiVersion(obj.apiVersion),
    kind: obj.kind,
  });
  return { mapping, ns: mapping.namespaced ? (obj.metadata.namespace ?? namespace) : undefined };
}

async function waitForStep(
  access: ClusterAccess,
  testCase: KuttlCase,
  step: KuttlStep,
  options: RunOptions,
): Promise<void> {
  const expected = step.assert ? readManifests(step.assert) : [];
  const forbidden = step.errors ? readManifests(step.errors) : [];
  const deadline = Date.now() + (options.stepTimeoutMs ?? 30_000);
  let problem: string | undefined;
  do {
    problem = await firstProblem(access, expected, forbidden, options.namespace);
    if (!problem) return;
    await sleep(250);
  } while (Date.now() < deadline);
  throw new KuttlStepError(testCase.name, step.index, problem);
}

async function firstProblem(
  access: ClusterAccess,
  expected: readonly ManifestObject[],
  forbidden: readonly ManifestObject[],
  namespace: string,
): Promise<string | undefined> {
  for (const want of expected) {
    const candidates = await find(access, want, namespace);
    const label = `${want.kind} ${want.metadata.name ?? '(any)'}`;
    if (candidates.length === 0) return `${label} does not exist`;
    const mismatches = candidates.map((c) => subsetMismatch(want, c));
    if (!mismatches.includes(undefined)) return `${label}: ${mismatches[0]}`;
  }
  for (const deny of forbidden) {
    const candidates = await find(access, deny, namespace);
    if (candidates.some((c) => subsetMismatch(deny, c) === undefined)) {
      return `${deny.kind} ${deny.metadata.name ?? '(any)'} exists but must not`;
    }
  }
  return undefined;
}

/** The named object, or all objects of the kind in the namespace when no name is given. */
async function find(
  access: ClusterAccess,
  obj: ManifestObject,
  namespace: string,
): Promise<unknown[]> {
  const { mapping, ns } = await locate(access, obj, namespace);
  if (!obj.metadata.name) {
    const list = await access.client.request<{ items: unknown[] }>({
      path: collectionPath(mapping, ns),
    });
    return list.items;
  }
  try {
    return [
      await access.client.request<unknown>({ path: objectPath(mapping, obj.metadata.name, ns) }),
    ];
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return [];
    throw err;
  }
}
