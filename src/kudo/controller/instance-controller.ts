/**
 * Wires the Instance reconciler into the runtime: the controller reconciles Instances, is
 * woken by spec/metadata changes of an Instance (not by its own status writes), by owned
 * workloads changing (their status decides health), and by OperatorVersion changes.
 */
import type { Logger } from 'pino';
import { ServerSideApply } from '../../kube/apply.ts';
import type { GroupVersionKind } from '../../kube/gvk.ts';
import {
  objectKey,
  type Controller,
  type EventFilter,
  type KubeObject,
  type Manager,
} from '../../runtime/index.ts';
import type { OperatorVersionSource } from '../admission/index.ts';
import { OPERATOR_VERSION_GVK } from '../admission/index.ts';
import { operatorVersionRef } from '../api/read.ts';
import { KUDO_GROUP, KUDO_VERSION, type Instance } from '../api/types.ts';
import { InstanceReconciler, type InstanceReconcilerOptions } from '../engine/index.ts';

export const INSTANCE_GVK: GroupVersionKind = {
  group: KUDO_GROUP,
  version: KUDO_VERSION,
  kind: 'Instance',
};

/** Kinds whose status changes decide health over time; their events wake the owning Instance. */
export const DEFAULT_OWNED_KINDS: readonly GroupVersionKind[] = [
  { group: 'apps', version: 'v1', kind: 'Deployment' },
  { group: 'apps', version: 'v1', kind: 'StatefulSet' },
  { group: 'apps', version: 'v1', kind: 'DaemonSet' },
  { group: 'batch', version: 'v1', kind: 'Job' },
];

export const FIELD_MANAGER = 'planwright';
const BY_OPERATOR_VERSION = 'operatorVersion';

/** Spec changes (generation), deletion start, finalizer changes; never our own status writes. */
export const instanceChanged: EventFilter = (event) => {
  if (event.type !== 'update' || !event.old) return true;
  const a = (event.old as unknown as Instance).metadata;
  const b = (event.object as unknown as Instance).metadata;
  return (
    a?.generation !== b?.generation ||
    a?.deletionTimestamp !== b?.deletionTimestamp ||
    JSON.stringify(a?.finalizers ?? []) !== JSON.stringify(b?.finalizers ?? [])
  );
};

export interface InstanceControllerOptions extends Pick<
  InstanceReconcilerOptions,
  'waitMinMs' | 'waitMaxMs' | 'stepTimeoutMs' | 'stepRetryLimit' | 'filter' | 'templates'
> {
  readonly manager: Manager;
  readonly logger: Logger;
  readonly operatorVersions: OperatorVersionSource;
  readonly workers?: number;
  readonly ownedKinds?: readonly GroupVersionKind[];
}

function operatorVersionIndex(obj: KubeObject): string[] {
  const ref = operatorVersionRef(obj as unknown as Instance);
  return ref ? [`${ref.namespace}/${ref.name}`] : [];
}

export function registerInstanceController(options: InstanceControllerOptions): Controller {
  const { manager } = options;
  const ssa = new ServerSideApply({
    client: manager.client,
    mapper: manager.caches.mapper(),
    fieldManager: FIELD_MANAGER,
  });
  const reconciler = new InstanceReconciler({
    instances: { get: (key) => controller.primary.get(key) as Instance | undefined },
    operatorVersions: options.operatorVersions,
    client: manager.client,
    ssa,
    events: manager.events,
    logger: options.logger,
    ...(options.templates ? { templates: options.templates } : {}),
    ...(options.waitMinMs !== undefined ? { waitMinMs: options.waitMinMs } : {}),
    ...(options.waitMaxMs !== undefined ? { waitMaxMs: options.waitMaxMs } : {}),
    ...(options.stepTimeoutMs !== undefined ? { stepTimeoutMs: options.stepTimeoutMs } : {}),
    ...(options.stepRetryLimit !== undefined ? { stepRetryLimit: options.stepRetryLimit } : {}),
    ...(options.filter ? { filter: options.filter } : {}),
  });
  let builder = manager
    .controller()
    .named('instances')
    .for(INSTANCE_GVK, instanceChanged)
    .watches(OPERATOR_VERSION_GVK, (ov) => {
      const primary = controller.primary;
      primary.addIndex(BY_OPERATOR_VERSION, operatorVersionIndex);
      return primary.byIndex(BY_OPERATOR_VERSION, objectKey(ov)).map(objectKey);
    })
    .workers(options.workers ?? 4);
  for (const gvk of options.ownedKinds ?? DEFAULT_OWNED_KINDS) builder = builder.owns(gvk);
  const controller: Controller = builder.complete(reconciler.reconcile);
  return controller;
}
