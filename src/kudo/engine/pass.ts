/**
 * One reconcile pass of one Instance, as every job of the reconciler sees it (plan-run.ts,
 * finalize.ts, readiness.ts, keep.ts): what the pass is about and the services it uses.
 *
 * The Instance travels under one name, `pass.instance`: the latest stored copy, which the
 * status session replaces after each of its writes. What the pass read at its start stays in
 * `pass.read` (the status it began from decides whether a run is new or just finished). The
 * working status has one owner, `pass.session`: jobs change it through its methods and the
 * session writes it.
 */
import type { Logger } from 'pino';
import type { ServerSideApply, KubeClient } from '../../kube/index.ts';
import type { OperatorVersionSource } from '../api/index.ts';
import { namespacedName } from '../../kube/index.ts';
import {
  operatorVersionRef,
  KUDO_API_VERSION,
  type Instance,
  type InstanceStatus,
  type OperatorVersion,
} from '../api/index.ts';
import { KUDO_TENANCY, operatorVersionProblem } from '../tasks/index.ts';
import type { ObjectReader, TaskServices } from '../tasks/index.ts';
import type { Identities } from './acting-as.ts';
import type { DriftKeeper } from './drift.ts';
import type { InstanceWriter } from './instance-api.ts';
import type { InstanceWatches } from './instance-watches.ts';
import type { TermMemory } from './memory.ts';
import type { PipePodSweeper } from './pipe-pods.ts';
import type { StatusSession } from './session.ts';
import type { Target, TargetClusters } from './targets.ts';
import type { WorkloadSource } from './workloads.ts';

export interface EventSink {
  record(object: Instance, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /**
   * The Event of one occurrence `event.id`, at most once even across processes (a
   * deterministic name; AlreadyExists counts as recorded). Resolves when stored or given up
   * on (logged); never rejects. `signal` ends the POST at once when the reconcile is
   * aborted; the Event is then not recorded.
   */
  recordOnce(object: Instance, event: OnceEvent, signal?: AbortSignal): Promise<void>;
}

/** An Event that exists once per occurrence: `id` names the occurrence. */
export interface OnceEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  readonly id: string;
}

/**
 * The engine's context: made once by the controller and passed unchanged to every term's
 * reconciler, every pass (`pass.engine.ctx`) and every task (`ctx.services`), as kube-rs hands
 * its controller one `Arc<Ctx>`. Nothing in it is copied field by field between layers.
 */
export interface EngineContext extends TaskServices {
  readonly operatorVersions: OperatorVersionSource;
  readonly client: KubeClient;
  /** The home cluster's. */
  readonly ssa: ServerSideApply;
  readonly events: EventSink;
  readonly logger: Logger;
  /** The Instance's workloads for the Ready condition. */
  readonly workloads: WorkloadSource;
  readonly now: () => Date;
  /**
   * Applied objects from the home cluster's watch caches (a waiting plan reads them there and
   * is woken by their events); without it every look is a GET and waits poll on a timer.
   */
  readonly objects?: ObjectReader;
  readonly stepTimeoutMs?: number;
  readonly stepRetryLimit?: number;
  /** Target clusters (spec.kubeConfig); without it every Instance applies to the home cluster. */
  readonly targets?: TargetClusters;
  /** Caches per {cluster, GVK} the Instances hold (remote targets, drift). */
  readonly watches?: InstanceWatches;
  /** Whose rights Instances write with at home (acting-as.ts); absent: the manager's. */
  readonly identities?: Identities;
  /** First delay while waiting (doubles up to waitMaxMs). Default 1 s. */
  readonly waitMinMs?: number;
  /** Default 60 s. */
  readonly waitMaxMs?: number;
  /**
   * Makes the drift baselines of a term (called once per term, with the term's signal: a
   * baseline taken under an earlier term may predate writes of another replica). None: drift
   * is not tracked.
   */
  readonly newDrift?: (term: AbortSignal) => DriftKeeper;
  /** Only Instances this accepts are reconciled (tests isolate by namespace). */
  readonly filter?: (instance: Instance) => boolean;
}

/** The context, and what one term of leadership keeps (built once per term by the reconciler). */
export interface Engine {
  readonly ctx: EngineContext;
  readonly writer: InstanceWriter;
  readonly pipePods: PipePodSweeper;
  readonly memory: TermMemory;
  /** Drift baselines and checks of this term (planwright.dev/drift). */
  readonly drift?: DriftKeeper;
}

export interface Pass {
  readonly engine: Engine;
  /** The Instance's `namespace/name`. */
  readonly key: string;
  readonly signal: AbortSignal;
  readonly session: StatusSession;
  /** Where the Instance applies, or why it cannot be reached now. */
  readonly target: Target | Error;
  /**
   * Who writes the Instance's objects in the home cluster (the manager, or the ServiceAccount
   * it acts as), or why its choice of identity is refused (then nothing is written there).
   */
  readonly home: ServerSideApply | Error;
  /** The status as the pass read it, before anything changed it. */
  readonly read: InstanceStatus;
  /** The Instance as last stored (see the module comment). */
  readonly instance: Instance;
}

/** A pass over `session`'s Instance; `instance` follows the session's writes. */
export function openPass(context: Omit<Pass, 'instance' | 'read'>): Pass {
  const read = structuredClone(context.session.instance.status ?? {});
  return {
    ...context,
    read,
    get instance(): Instance {
      return context.session.instance;
    },
  };
}

/** A Warning Event, once per plan run (and term) for the same reason and message. */
export function warnOnce(
  pass: Pass,
  planUid: string,
  warning: { reason: string; message: string },
): void {
  const instance = pass.instance;
  const key = JSON.stringify([
    instance.metadata.uid ?? namespacedName(instance.metadata),
    planUid,
    warning.reason,
    warning.message,
  ]);
  const warned = pass.engine.memory.warned;
  if (warned.has(key)) return;
  warned.set(key, true);
  pass.engine.ctx.events.record(instance, 'Warning', warning.reason, warning.message);
}

/**
 * Why the Instance may not use the OperatorVersion it names (another namespace's, without an
 * administrator's allowance), or undefined.
 */
export function foreignOperatorVersion(pass: Pass): string | undefined {
  const ref = operatorVersionRef(pass.instance);
  return ref
    ? operatorVersionProblem(pass.engine.ctx.tenancy ?? KUDO_TENANCY, pass.instance, ref)
    : undefined;
}

/**
 * The OperatorVersion the Instance names (cache; one live GET on a miss). One of another
 * namespace the Instance may not use is not read at all: an empty one stands in for it (no
 * plans, templates or parameters of that namespace reach this Instance), and its scheduled
 * run ends FATAL_ERROR saying why (plan-run.ts).
 */
export async function operatorVersionOf(pass: Pass): Promise<OperatorVersion | undefined> {
  const ref = operatorVersionRef(pass.instance);
  if (!ref) return undefined;
  if (foreignOperatorVersion(pass) !== undefined) {
    return {
      apiVersion: KUDO_API_VERSION,
      kind: 'OperatorVersion',
      metadata: { ...ref },
      spec: {},
    };
  }
  return pass.engine.ctx.operatorVersions.get(ref.namespace, ref.name, pass.signal);
}
