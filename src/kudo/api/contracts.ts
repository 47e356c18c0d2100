/**
 * Contracts the domain's parts share (admission, engine, controller, the App): the kinds of
 * kudo.dev/v1beta1 as GVKs, and where OperatorVersions are read from.
 */
import type { GroupVersionKind } from '../../kube/index.ts';
import { KUDO_GROUP, KUDO_VERSION, type OperatorVersion } from './types.ts';

export const OPERATOR_GVK: GroupVersionKind = {
  group: KUDO_GROUP,
  version: KUDO_VERSION,
  kind: 'Operator',
};

export const OPERATOR_VERSION_GVK: GroupVersionKind = {
  group: KUDO_GROUP,
  version: KUDO_VERSION,
  kind: 'OperatorVersion',
};

export const INSTANCE_GVK: GroupVersionKind = {
  group: KUDO_GROUP,
  version: KUDO_VERSION,
  kind: 'Instance',
};

/** Where OperatorVersions are read from (the shared cache, with a live GET on a miss). */
export interface OperatorVersionSource {
  /** The OperatorVersion, or undefined when it does not exist. Other failures throw. */
  get(namespace: string, name: string, signal?: AbortSignal): Promise<OperatorVersion | undefined>;
  /**
   * The OperatorVersion if the source has it at hand (a cache hit), without asking the API
   * server; undefined otherwise (then `get`). Lets a caller that usually hits answer
   * synchronously.
   */
  peek?(namespace: string, name: string): OperatorVersion | undefined;
}
