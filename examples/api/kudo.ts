// Compiled examples of src/kudo: admission (decision, webhooks, OperatorVersion and usage
// lookups), parameter checks, the render pool and package loading — each the way the App wires
// it (type-checked with the rest; nothing runs at import).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeClient } from '../../src/kube/index.ts';
import {
  CachedKudoUsage,
  CachedOperatorVersionSource,
  LiveOperatorSource,
  LiveOperatorVersionSource,
  OPERATOR_VERSION_GVK,
  decide,
  finalGuard,
  instanceMutator,
  instanceValidator,
  operatorValidator,
  operatorVersionValidator,
  registerAdmissionWebhooks,
  type AdmissionServer,
  type Decision,
  type DecisionInput,
  type KudoUsage,
  type OperatorVersionSource,
  type UsageCache,
} from '../../src/kudo/admission/index.ts';
import type { Instance, OperatorVersion } from '../../src/kudo/api/index.ts';
import { loadPackage } from '../../src/kudo/package/index.ts';
import { ParameterValidator, type ParameterProblem } from '../../src/kudo/params/index.ts';
import type { RenderJob, RenderOutput } from '../../src/kudo/render/index.ts';
import { RenderPool } from '../../src/kudo/pool/index.ts';
import type { CacheRegistry } from '../../src/runtime/index.ts';
import type { WebhookServer } from '../../src/server/index.ts';

/** The service account the controller runs as: the only user that may schedule `cleanup`. */
const CONTROLLER_USERS: ReadonlySet<string> = new Set([
  'system:serviceaccount:planwright-system:planwright',
]);

/** Render workers for the controller; stopped when `signal` aborts (a term of leadership). */
export async function renderPool(
  logger: Logger,
  job: RenderJob,
  signal: AbortSignal,
): Promise<RenderOutput['objects']> {
  const pool = new RenderPool({
    name: 'render',
    size: 2,
    deadlineMs: 10_000,
    maxHeapMb: 256,
    logger,
  });
  pool.start(signal); // workers start on demand, exit when idle, and end when signal aborts
  const { objects } = await pool.render(job, signal);
  return objects;
}

/** Parameter values checked against an OperatorVersion, array/map values decoded in a worker. */
export async function parameters(
  ov: OperatorVersion,
  values: Readonly<Record<string, string>>,
  pool: RenderPool,
  signal: AbortSignal,
): Promise<ParameterProblem[]> {
  const validator = new ParameterValidator({ maxCachedOperatorVersions: 256 });
  const decoded = await validator.decode(
    ov,
    values,
    (raw, type, s) => pool.decode(raw, type, s),
    signal,
  );
  return validator.validate(ov, values, undefined, decoded);
}

/** OperatorVersions read from the shared cache, one live GET while it syncs or on a miss. */
export async function operatorVersions(
  client: KubeClient,
  caches: CacheRegistry,
  signal: AbortSignal,
): Promise<OperatorVersion | undefined> {
  const live = new LiveOperatorVersionSource({ client, timeoutMs: 2_000 });
  const lease = await caches.acquire<OperatorVersion>(OPERATOR_VERSION_GVK, 'admission');
  try {
    const source = new CachedOperatorVersionSource({ cache: lease.cache, live });
    return await source.get('default', 'zookeeper-3.6.2-0.3.3', signal);
  } finally {
    lease.release();
  }
}

/** Which Instances use an OperatorVersion (refusing its deletion while any does). */
export async function usage(
  client: KubeClient,
  instances: () => UsageCache<Instance> | undefined,
  ovs: () => UsageCache<OperatorVersion> | undefined,
  signal: AbortSignal,
): Promise<Instance[]> {
  const usage = new CachedKudoUsage({
    instances,
    operatorVersions: ovs,
    client,
    timeoutMs: 2_000,
  });
  return usage.instancesUsing({ namespace: 'ns', name: 'zk-0.3.3' }, signal);
}

/** What an Instance change schedules (the mutating webhook), and the final guard after it. */
export function decision(
  instance: Instance,
  oldInstance: Instance,
  ov: OperatorVersion,
  validator: ParameterValidator,
): { mutating: Decision; validating: Decision } {
  const input: DecisionInput = {
    operation: 'UPDATE',
    instance,
    oldInstance,
    operatorVersion: ov,
    oldOperatorVersion: ov,
    user: { username: 'alice' },
    dryRun: false,
  };
  const deps = {
    validator,
    newUid: randomUUID,
    now: () => new Date(),
    controllerUsers: CONTROLLER_USERS,
  };
  return {
    mutating: decide(input, deps),
    // The guard compares plan names only: the uid a scheduling would get does not matter.
    validating: finalGuard(input, { ...deps, newUid: () => '' }),
  };
}

/** Every admission webhook at once, as the App registers them. */
export function webhooks(
  server: WebhookServer,
  client: KubeClient,
  source: OperatorVersionSource,
  pool: RenderPool,
  usage: KudoUsage,
): void {
  registerAdmissionWebhooks(server, {
    operatorVersions: source,
    validator: new ParameterValidator({ maxCachedOperatorVersions: 256 }),
    controllerUsers: CONTROLLER_USERS,
    decoder: (raw, type, signal) => pool.decode(raw, type, signal),
    verify: (ov, namespaceManifest, signal) => pool.verify(ov, namespaceManifest, signal),
    operators: new LiveOperatorSource({ client, timeoutMs: 2_000 }),
    usage,
  });
}

/** The same webhooks one by one (e.g. a server that serves only some of them). */
export function webhooksOneByOne(
  server: AdmissionServer,
  client: KubeClient,
  source: OperatorVersionSource,
  pool: RenderPool,
  usage: KudoUsage,
): void {
  const validator = new ParameterValidator({ maxCachedOperatorVersions: 256 });
  const gather = { operatorVersions: source, validator, controllerUsers: CONTROLLER_USERS };
  server.registerMutating('instances', instanceMutator(gather));
  server.registerValidating('instances', instanceValidator(gather));
  server.registerValidating(
    'operatorversions',
    operatorVersionValidator({
      verify: (ov, namespaceManifest, signal) => pool.verify(ov, namespaceManifest, signal),
      operators: new LiveOperatorSource({ client, timeoutMs: 2_000 }),
      usage,
    }),
  );
  server.registerValidating('operators', operatorValidator({ usage }));
}

/** A package folder as the objects `kubectl kudo install` creates. */
export async function loadAndApply(
  dir: string,
  apply: (object: object) => Promise<void>,
): Promise<void> {
  const pkg = await loadPackage(dir, { namespace: 'ns' });
  await apply(pkg.operator);
  await apply(pkg.operatorVersion);
  await apply(pkg.instance);
}
