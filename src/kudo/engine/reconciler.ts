/**
 * The Instance reconciler: level-triggered execution of the plan `spec.planExecution`
 * schedules. Each call reads the Instance (cache) and its OperatorVersion (cache, one live GET
 * on a miss), resets the plan's status when the scheduled uid is new, runs one idempotent
 * pass, writes status only when it changed, records Events, and asks to be called again with
 * a growing delay while the plan waits or errs. The cleanup finalizer only when deleting the
 * Instance needs us (finalizer.ts). Deletion runs the `cleanup` plan (if any), deletes the
 * inventory, then removes the finalizer.
 */
import type { Logger } from 'pino';
import type { ServerSideApply } from '../../kube/apply.ts';
import type { KubeClient } from '../../kube/client.ts';
import { ApiError } from '../../kube/errors.ts';
import { BoundedMap, objectKey, type ReconcileResult } from '../../runtime/index.ts';
import type { OperatorVersionSource } from '../api/contracts.ts';
import { isTerminal, operatorVersionRef } from '../api/read.ts';
import { describeStatusProblems, readStatus } from '../api/status-read.ts';
import type { ShapeProblem } from '../api/shape-check.ts';
import {
  PLAN_CLEANUP,
  type Instance,
  type InstanceStatus,
  type OperatorVersion,
  type PlanStatus,
} from '../api/types.ts';
import { InlineRenderer, RenderBudget, rawParameters, type Renderer } from '../render/index.ts';
import { OperatorVersionMissingError } from './errors.ts';
import { InstanceWriter } from './instance-api.ts';
import { deleteInventory } from './cleanup.ts';
import { cleanupFinalizerNeeded, hasCleanupFinalizer } from './finalizer.ts';
import { findUnrecorded, nothingUnrecorded } from './unrecorded.ts';
import { executePass, freshPlanStatus } from './plan.ts';
import { pipesOfPlan } from './pipes.ts';
import { dependencyProblem, isChildInstance } from './dependencies.ts';
import { PipePodSweeper } from './pipe-pods.ts';
import { operatorVersionProblem, type PodExec, type TenancyPolicy } from '../tasks/index.ts';
import type { AppliedObject, ObjectReader } from '../tasks/types.ts';
import { StatusSession } from './session.ts';
import { READINESS_KINDS, readinessOf } from '../health/readiness.ts';
import type { ApplyObject } from '../../kube/apply.ts';
import { readInventory, type InventoryEntry } from '../inventory/index.ts';
import type { DriftKeeper } from './drift.ts';
import { isNewRun, planEventId, planFinishedMessage, planStartedMessage } from './plan-events.ts';
import { driftMode, gvkOf, setDriftCondition } from './drift.ts';
import type { InstanceWatches } from './instance-watches.ts';
import { kindsOn } from './instance-watches.ts';
import type { Target, TargetClusters } from './targets.ts';
import {
  progressOf,
  readyCondition,
  readyFromPlan,
  readyFromWorkloads,
  setReady,
  syncPlanEntries,
} from './status.ts';
import { LiveWorkloadSource, type WorkloadSource } from './workloads.ts';
import { runStepTasks } from './step-runner.ts';
import { PassWaits, WaitBackoff } from './waits.ts';
import { namespacedName } from '../../kube/names.ts';

export interface EventSink {
  record(object: Instance, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /**
   * The Event of one occurrence `id`, at most once even across processes (a deterministic
   * name; AlreadyExists counts as recorded). Resolves when stored or given up on (logged);
   * never rejects.
   */
  recordOnce(
    object: Instance,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    id: string,
    /** Ends the POST at once when the reconcile is aborted; the Event is then not recorded. */
    signal?: AbortSignal,
  ): Promise<void>;
}

export interface InstanceReconcilerOptions {
  readonly instances: { get(key: string): Instance | undefined };
  readonly operatorVersions: OperatorVersionSource;
  readonly client: KubeClient;
  readonly ssa: ServerSideApply;
  readonly events: EventSink;
  readonly logger: Logger;
  /** Where templates render: the render pool in production; inline (this thread) by default. */
  readonly templates?: Renderer;
  /** The Instance's workloads for the Ready condition; default: live LISTs. */
  readonly workloads?: WorkloadSource;
  /**
   * Applied objects from the home cluster's watch caches (a waiting plan reads them there and
   * is woken by their events); default: every look is a GET and waits poll on a timer.
   */
  readonly objects?: ObjectReader;
  /** First delay while waiting (doubles up to waitMaxMs). Default 1 s. */
  readonly waitMinMs?: number;
  /** Default 60 s. */
  readonly waitMaxMs?: number;
  readonly stepTimeoutMs?: number;
  readonly stepRetryLimit?: number;
  /** Image of the pipe pods' waiter container (default DEFAULT_WAITER_IMAGE). */
  readonly pipeWaiterImage?: string;
  /** Runs commands in pods for Pipe tasks (default: pods/exec over WebSocket). */
  readonly podExec?: PodExec;
  /** What Instances may make the manager do beyond their namespace (default: KUDO's posture). */
  readonly tenancy?: TenancyPolicy;
  /** Target clusters (spec.kubeConfig); without it every Instance applies to the home cluster. */
  readonly targets?: TargetClusters;
  /** Caches per {cluster, GVK} the Instances hold (remote targets, drift). */
  readonly watches?: InstanceWatches;
  /** Drift baselines and checks (planwright.dev/drift). */
  readonly drift?: DriftKeeper;
  /** Only Instances this accepts are reconciled (tests isolate by namespace). */
  readonly filter?: (instance: Instance) => boolean;
  readonly now?: () => Date;
}

/**
 * The way out when a target cluster or its Secret is gone for good: the Instance's objects
 * there are left in place and its deletion finishes.
 */
export const ANNOTATION_SKIP_TARGET_CLEANUP = 'planwright.dev/skip-target-cleanup';

/** Instances remembered per map of the reconciler (oldest forgotten first). */
const MAX_REMEMBERED = 65_536;

export class InstanceReconciler {
  private readonly writer: InstanceWriter;
  private readonly templates: Renderer;
  private readonly waits: WaitBackoff;
  private readonly now: () => Date;
  private readonly workloads: WorkloadSource;
  private readonly pipePods: PipePodSweeper;
  /** Warnings already recorded, per Instance and plan run (bounded, oldest forgotten first). */
  private readonly warned = new BoundedMap<string, true>(4096);
  /** The run each Instance last finished (`plan/uid`), to recognise a stale cached copy. */
  private readonly finished = new BoundedMap<string, string>(MAX_REMEMBERED);
  /**
   * Inventory entries of objects applied whose record no status write carried yet (the
   * closing write failed, e.g. a conflict): the next session of the Instance writes them.
   * An Instance forgotten here is no longer `accounted`: its entries are lost to memory, only
   * a look can find their objects again.
   */
  private readonly unwritten = new BoundedMap<string, readonly InventoryEntry[]>(
    MAX_REMEMBERED,
    (key) => this.accounted.delete(key),
  );
  /**
   * Instances (key → metadata.uid) of which this process knows every applied object is
   * recorded or in `unwritten`: it saw their scheduled run finished, or looked for unrecorded
   * objects itself. A new run of such an Instance needs no look (unrecorded.ts).
   */
  private readonly accounted = new BoundedMap<string, string>(MAX_REMEMBERED);

  constructor(private readonly options: InstanceReconcilerOptions) {
    this.writer = new InstanceWriter(options.client);
    this.workloads =
      options.workloads ?? new LiveWorkloadSource(options.client, options.ssa.mapper);
    this.templates = options.templates ?? new InlineRenderer();
    this.waits = new WaitBackoff({
      minMs: options.waitMinMs ?? 1_000,
      maxMs: options.waitMaxMs ?? 60_000,
    });
    this.now = options.now ?? ((): Date => new Date());
    this.pipePods = new PipePodSweeper(options.ssa, options.logger);
  }

  readonly reconcile = async (
    key: string,
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> => {
    try {
      return await this.reconcileOnce(key, signal);
    } catch (err) {
      // A write based on a cache that had not seen our previous write yet: look again shortly.
      if (err instanceof ApiError && err.statusCode === 409) {
        this.options.logger.debug(
          { key, err },
          'conflict writing the Instance; retrying from fresh state',
        );
        return { requeueAfter: 200 };
      }
      throw err;
    }
  };

  private async reconcileOnce(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const cached = this.options.instances.get(key);
    if (!cached || (this.options.filter && !this.options.filter(cached))) {
      this.waits.forget(key);
      this.finished.delete(key);
      this.unwritten.delete(key);
      this.accounted.delete(key);
      this.options.watches?.releaseAll(key);
      this.options.drift?.forgetInstance(key);
      return;
    }
    // The status is stored untyped (issue 18): read its shape once, here, for the whole pass.
    const { instance, problems } = readStatus(cached);
    if (problems.length > 0) {
      this.reportMalformedStatus(instance, problems);
      // The run's stored outcome may be what was left out: "finished, wait for the cache"
      // would wait forever; the pass reads it afresh (and reruns the plan if its status is gone).
      this.finished.delete(key);
    }
    const target = await this.target(instance, signal);
    // A target cluster gets a bounded share of the workers: a slow one cannot take them all.
    const targets = this.options.targets;
    const leave = targets
      ? targets.tryEnter(target instanceof Error ? undefined : target.cluster)
      : (): void => undefined;
    if (!leave) return { requeueAfter: 250 + Math.floor(Math.random() * 500) };
    try {
      if (instance.metadata.deletionTimestamp)
        return await this.finalize(key, instance, target, signal);
      return await this.reconcileLive(key, instance, problems.length > 0, target, signal);
    } finally {
      leave();
    }
  }

  /** The Instance's target, or why it cannot be used (shown in the step that would apply). */
  private async target(instance: Instance, signal: AbortSignal): Promise<Target | Error> {
    const targets = this.options.targets;
    if (!targets) return { cluster: undefined, ssa: this.options.ssa };
    try {
      return await targets.resolve(instance, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  private async reconcileLive(
    key: string,
    instance: Instance,
    malformedStatus: boolean,
    target: Target | Error,
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> {
    const ov = await this.operatorVersion(instance, signal);
    const session = this.openSession(key, instance, signal);
    // A status part of the wrong shape was left out: write the status back in its shape. (Known
    // from the read above, not by comparing with the cache, which may hold a newer object now.)
    if (malformedStatus) session.repair();
    try {
      if (cleanupFinalizerNeeded(instance, ov, session.inventory)) await session.requireFinalizer();
      return await this.runLive(key, instance, session.instance, ov, session, target, signal);
    } finally {
      this.keepUnwritten(key, session);
    }
  }

  /**
   * A status of the wrong shape names the Instance and the fields (log and Warning Event,
   * aggregated by the Event sink); the pass goes on as if those parts were absent.
   */
  private reportMalformedStatus(instance: Instance, problems: readonly ShapeProblem[]): void {
    const message = `status of Instance ${namespacedName(instance.metadata)} has fields of the wrong shape, read as absent and rewritten by the controller: ${describeStatusProblems(problems)}`;
    this.options.logger.warn(message);
    this.options.events.record(instance, 'Warning', 'MalformedStatus', message);
  }

  /** A status session of the Instance, carrying what an earlier session could not write. */
  private openSession(key: string, instance: Instance, signal: AbortSignal): StatusSession {
    const session = new StatusSession(instance, this.writer, this.now, signal);
    const left = this.unwritten.get(key);
    if (left) session.adopt(left);
    return session;
  }

  private keepUnwritten(key: string, session: StatusSession): void {
    const left = session.unwritten;
    if (left.length === 0) this.unwritten.delete(key);
    else this.unwritten.set(key, [...left]);
  }

  private async runLive(
    key: string,
    instance: Instance,
    current: Instance,
    ov: OperatorVersion | undefined,
    session: StatusSession,
    target: Target | Error,
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> {
    const status = session.working;
    const pe = current.spec?.planExecution;
    if (!ov) {
      const ref = operatorVersionRef(current);
      const err = new OperatorVersionMissingError(
        namespacedName(current.metadata),
        namespacedName(ref),
      );
      setReady(
        status,
        current,
        { status: 'False', reason: 'OperatorVersionNotFound', message: err.message },
        this.now(),
      );
      await session.flush();
      return { requeueAfter: this.waits.next(key, 'missing-ov', false) };
    }
    syncPlanEntries(status, ov);
    const before = structuredClone(instance.status ?? {});
    let result: ReconcileResult | undefined;
    let running = false;
    if (pe?.planName) {
      const uid = pe.uid ?? '';
      const was = before.planStatus?.[pe.planName];
      const wasTerminal = (was?.uid ?? '') === uid && isTerminal(was?.status);
      // The cache may not have seen our own write that ended this run yet: running the pass
      // again from that stale copy would re-apply objects users may have edited since (KUDO
      // semantics: edits made while no plan runs stay). Look again shortly instead.
      if (!wasTerminal && this.finished.get(key) === `${pe.planName}/${uid}`) {
        return { requeueAfter: 100 };
      }
      if (wasTerminal) this.accounted.set(key, current.metadata.uid ?? '');
      else if ((was?.uid ?? '') !== uid)
        await this.recordUnrecorded(key, session, current, ov, signal);
      await this.recordPlanStarted(session.instance, pe.planName, was, uid, signal);
      const passWaits = new PassWaits();
      const ps = await this.runPlan(
        session,
        ov,
        pe.planName,
        uid,
        target,
        passWaits,
        signal,
        pe.abort ? (pe.abortRequestedBy ?? 'unknown user') : undefined,
        pe.abortRequestedAt,
      );
      status.planExecution = {
        planName: pe.planName,
        uid,
        status: ps.status ?? 'PENDING',
        ...(ps.startedAt ? { startedAt: ps.startedAt } : {}),
        ...(current.metadata.generation !== undefined
          ? { observedGeneration: current.metadata.generation }
          : {}),
      };
      await this.updateReady(
        session,
        readyFromPlan(pe.planName, ps, !wasTerminal && isTerminal(ps.status)),
        target,
        signal,
      );
      await this.recordPlanOutcome(session.instance, pe.planName, was, ps, signal);
      await session.flush();
      await this.sweepPipePods(session.instance, ov, pe.planName, ps, signal);
      if (!isTerminal(ps.status)) {
        running = true;
        const progressed = progressOf(before.planStatus?.[pe.planName]) !== progressOf(ps);
        const delay = this.waits.next(key, uid, progressed);
        // Waiting only for watched objects: their watch events wake the Instance (no polling);
        // a step timeout still needs a look when it expires.
        result = passWaits.eventDriven ? this.stepDeadline(ps) : { requeueAfter: delay };
      } else {
        this.waits.forget(key);
        this.rememberFinished(key, `${pe.planName}/${uid}`);
      }
    } else {
      await this.updateReady(session, 'workloads', target, signal);
      await session.flush();
    }
    await this.watchAndKeep(key, session, target, !running, signal);
    return result;
  }

  /** A look when the earliest running step's timeout expires; none without a step timeout. */
  private stepDeadline(ps: PlanStatus): ReconcileResult | undefined {
    const timeout = this.options.stepTimeoutMs;
    if (timeout === undefined) return undefined;
    let earliest = Number.POSITIVE_INFINITY;
    for (const phase of ps.phases ?? [])
      for (const step of phase.steps ?? []) {
        const started = step.startedAt ? Date.parse(step.startedAt) : Number.NaN;
        if (step.status === 'IN_PROGRESS' && Number.isFinite(started))
          earliest = Math.min(earliest, started);
      }
    const now = this.now().getTime();
    // Just past the deadline (the pass times a step out once more than `timeout` went by).
    const due = Number.isFinite(earliest) ? earliest + timeout + 1_000 - now : timeout;
    return { requeueAfter: Math.max(1_000, due) };
  }

  /**
   * Holds the caches of the Instance's kinds on its target (remote targets always; the home
   * cluster when drift is on), and — drift on, no plan running — checks its objects against
   * what was applied, reading the watch caches.
   */
  private async watchAndKeep(
    key: string,
    session: StatusSession,
    target: Target | Error,
    idle: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    const { watches, drift } = this.options;
    if (!watches || target instanceof Error) return;
    const mode = driftMode(session.instance);
    const entries = session.inventory;
    if (target.cluster !== undefined || mode !== 'off') {
      await watches.sync(key, target.cluster, kindsOn(entries, target.cluster));
    } else watches.releaseAll(key);
    const status = session.working;
    if (mode === 'off' || !drift) {
      // Turned off: what was kept for it goes (one lookup when there was none).
      drift?.forgetInstance(key);
      setDriftCondition(status, session.instance, undefined, this.now());
      await session.flush();
      return;
    }
    if (!idle) return;
    const instance = session.instance;
    const findings = await drift.check({
      instance,
      mode,
      entries,
      target,
      live: (entry) => {
        const cache = watches.cache(key, target.cluster, gvkOf(entry));
        if (!cache?.isSynced) return 'unknown';
        const id = entry.namespace ? `${entry.namespace}/${entry.name}` : entry.name;
        return cache.get(id) as ApplyObject | undefined;
      },
      sink: {
        event: (type, reason, message) =>
          this.options.events.record(instance, type, reason, message),
      },
      signal,
    });
    setDriftCondition(status, instance, findings, this.now());
    await session.flush();
  }

  /**
   * Sets the Ready condition from the plan's verdict, or from the Instance's workloads when
   * no plan decides it (or a plan that does not decide it runs and there is no condition yet).
   * A failed workload listing keeps the condition as it is; the next event retries.
   */
  private async updateReady(
    session: StatusSession,
    decision: ReturnType<typeof readyFromPlan>,
    target: Target | Error,
    signal: AbortSignal,
  ): Promise<void> {
    const status = session.working;
    const instance = session.instance;
    if (decision === 'keep' && readyCondition(status)) return;
    if (typeof decision === 'object') {
      setReady(status, instance, decision, this.now());
      return;
    }
    let objects;
    try {
      if (target instanceof Error) throw target;
      objects =
        target.cluster !== undefined
          ? this.targetWorkloads(session, target.cluster)
          : await this.workloads.list(
              instance.metadata.namespace ?? '',
              instance.metadata.name ?? '',
              signal,
            );
    } catch (err) {
      if (signal.aborted) throw err;
      this.options.logger.warn(
        { instance: namespacedName(instance.metadata), err },
        'could not list the Instance workloads for its Ready condition; keeping it as it is',
      );
      return;
    }
    setReady(status, instance, readyFromWorkloads(readinessOf(objects)), this.now());
  }

  /** Why the tenancy policy forbids the Instance's OperatorVersion, if it does. */
  private foreignOperatorVersion(instance: Instance): string | undefined {
    const ref = operatorVersionRef(instance);
    const policy = this.options.tenancy;
    return ref && policy ? operatorVersionProblem(policy, instance, ref.namespace) : undefined;
  }

  private async operatorVersion(
    instance: Instance,
    signal: AbortSignal,
  ): Promise<OperatorVersion | undefined> {
    const ref = operatorVersionRef(instance);
    return ref ? this.options.operatorVersions.get(ref.namespace, ref.name, signal) : undefined;
  }

  /** Resets on a new uid, honours an abort, else runs one pass. Returns the plan's status. */
  private async runPlan(
    session: StatusSession,
    ov: OperatorVersion,
    planName: string,
    uid: string,
    target: Target | Error,
    passWaits: PassWaits,
    signal: AbortSignal,
    abortBy?: string,
    abortAt?: string,
  ): Promise<PlanStatus> {
    const drift = this.options.drift;
    const status = session.working;
    const plans = (status.planStatus ??= {});
    // planName is user input (spec.planExecution): own keys only.
    const declared = ov.spec?.plans ?? {};
    const plan = Object.hasOwn(declared, planName) ? declared[planName] : undefined;
    let ps = Object.hasOwn(plans, planName) ? plans[planName] : undefined;
    if (!ps || (ps.uid ?? '') !== uid) {
      ps = plan
        ? freshPlanStatus(planName, plan, uid, this.now())
        : {
            name: planName,
            uid,
            status: 'FATAL_ERROR',
            message: `plan ${planName} does not exist in OperatorVersion ${ov.metadata.name ?? ''} (it has: ${Object.keys(ov.spec?.plans ?? {}).join(', ') || 'none'}); schedule an existing plan`,
            startedAt: this.now().toISOString(),
            phases: [],
          };
      plans[planName] = ps;
    }
    if (isTerminal(ps.status) || !plan) return ps;
    if (abortBy !== undefined) {
      ps.status = 'ABORTED';
      ps.message = `aborted by ${abortBy}${abortAt ? ` at ${abortAt}` : ''}; no further objects are touched by this run`;
      return ps;
    }
    const pipes = pipesOfPlan(planName, plan, ov, session.instance);
    if (!pipes.ok) {
      ps.status = 'FATAL_ERROR';
      ps.message = pipes.message;
      return ps;
    }
    const foreign = this.foreignOperatorVersion(session.instance);
    if (foreign !== undefined) {
      ps.status = 'FATAL_ERROR';
      ps.message = foreign;
      this.warnOnce(session.instance, uid, 'OperatorVersionNotAllowed', foreign);
      return ps;
    }
    if (!isChildInstance(session.instance)) {
      const problem = await dependencyProblem(
        ov,
        this.options.operatorVersions,
        this.options.client,
        signal,
      );
      if (problem !== undefined) {
        ps.status = 'FATAL_ERROR';
        ps.message = problem;
        this.warnOnce(session.instance, uid, 'CircularDependency', problem);
        return ps;
      }
    }
    if (ps.status === 'PENDING') ps.status = 'IN_PROGRESS';
    // Raw values: array/map parameters are decoded where templates render (off the loop).
    const params = rawParameters(session.instance, ov);
    const renderBudget = new RenderBudget();
    const instance = session.instance;
    await executePass(
      ps,
      plan,
      (phase, step) =>
        target instanceof Error
          ? Promise.resolve({ state: 'error' as const, message: target.message })
          : runStepTasks(
              {
                instance,
                operatorVersion: ov,
                planName,
                planUid: uid,
                passWaits,
                params,
                pipes: pipes.pipes,
                ssa: target.ssa,
                ...(target.cluster !== undefined ? { cluster: target.cluster } : {}),
                // The watch caches are the home cluster's: a target cluster's objects are GET.
                ...(target.cluster === undefined && this.options.objects
                  ? { objects: this.options.objects }
                  : {}),
                // Baselines only for Instances with drift on (they cost memory per object).
                ...(drift && driftMode(instance) !== 'off'
                  ? {
                      onApplied: (a: AppliedObject): void =>
                        drift.applied(objectKey(session.instance), a),
                    }
                  : {}),
                templates: this.templates,
                renderBudget,
                inventory: session,
                signal,
                ...(this.options.pipeWaiterImage
                  ? { pipeWaiterImage: this.options.pipeWaiterImage }
                  : {}),
                ...(this.options.podExec ? { podExec: this.options.podExec } : {}),
                ...(this.options.tenancy ? { tenancy: this.options.tenancy } : {}),
                warn: (reason, message) => this.warnOnce(instance, uid, reason, message),
              },
              phase,
              step,
            ),
      {
        now: this.now(),
        signal,
        ...(this.options.stepTimeoutMs !== undefined
          ? { stepTimeoutMs: this.options.stepTimeoutMs }
          : {}),
        ...(this.options.stepRetryLimit !== undefined
          ? { stepRetryLimit: this.options.stepRetryLimit }
          : {}),
      },
    );
    return ps;
  }

  /** Pipe pods of steps now recorded COMPLETE go (see PipePodSweeper). */
  private sweepPipePods(
    instance: Instance,
    ov: OperatorVersion,
    planName: string,
    ps: PlanStatus,
    signal: AbortSignal,
  ): Promise<void> {
    const plans = ov.spec?.plans ?? {};
    const plan = Object.hasOwn(plans, planName) ? plans[planName] : undefined;
    return this.pipePods.sweep(instance, ov, planName, plan, ps, signal);
  }

  private rememberFinished(key: string, run: string): void {
    this.finished.set(key, run);
  }

  /**
   * A new run starts: unless the stored status (or this process) proves every object applied
   * so far is recorded, finds the Instance's owned objects a run applied without their record
   * reaching the API server, and records them for prune (unrecorded.ts). The home cluster
   * only: objects in target clusters are always recorded before they are applied.
   */
  private async recordUnrecorded(
    key: string,
    session: StatusSession,
    instance: Instance,
    ov: OperatorVersion,
    signal: AbortSignal,
  ): Promise<void> {
    const uid = instance.metadata.uid ?? '';
    if (this.accounted.get(key) === uid || nothingUnrecorded(instance)) return;
    const found = await findUnrecorded(
      instance,
      ov,
      session.inventory,
      this.options.ssa,
      this.options.logger,
      signal,
    );
    if (found.length > 0) await session.record(found, { foundWithoutInventory: true });
    // Not after nothingUnrecorded alone: an earlier process may have run part of the run now
    // starting; its objects are re-rendered only if this run gets that far.
    this.accounted.set(key, uid);
  }

  /** Where an inventory entry's object lives, or why it cannot be reached now. */
  private ssaFor(entry: InventoryEntry, target: Target | Error): ServerSideApply | Error {
    if (entry.cluster === undefined) return this.options.ssa;
    // The Secret decides, also on deletion: credentials cached from before are not used once
    // it is gone or broken (the way out is the skip annotation).
    if (target instanceof Error) return target;
    if (target.cluster === entry.cluster) return target.ssa;
    return (
      this.options.targets?.byCluster(entry.cluster)?.ssa ??
      new Error(`cluster ${entry.cluster} is not the Instance's target and not known`)
    );
  }

  /** READINESS_KINDS objects of the inventory on a target cluster, from the watch caches. */
  private targetWorkloads(session: StatusSession, cluster: string): ApplyObject[] {
    const watches = this.options.watches;
    const kinds = new Set(READINESS_KINDS.map((g) => `${g.group}/${g.kind}`));
    const out: ApplyObject[] = [];
    for (const entry of session.inventory) {
      if (entry.cluster !== cluster || !kinds.has(`${entry.group}/${entry.kind}`)) continue;
      const cache = watches?.cache(
        namespacedName(session.instance.metadata),
        cluster,
        gvkOf(entry),
      );
      if (!cache?.isSynced)
        throw new Error(`the watch of ${entry.kind} in cluster ${cluster} is not synced yet`);
      const id = entry.namespace ? `${entry.namespace}/${entry.name}` : entry.name;
      const live = cache.get(id) as ApplyObject | undefined;
      if (live)
        out.push({
          ...live,
          apiVersion: entry.group ? `${entry.group}/${entry.version}` : entry.version,
          kind: entry.kind,
        });
    }
    return out;
  }

  /** A Warning Event, once per plan run for the same reason and message. */
  private warnOnce(instance: Instance, planUid: string, reason: string, message: string): void {
    const key = JSON.stringify([
      instance.metadata.uid ?? namespacedName(instance.metadata),
      planUid,
      reason,
      message,
    ]);
    if (this.warned.has(key)) return;
    this.warned.set(key, true);
    this.options.events.record(instance, 'Warning', reason, message);
  }

  /**
   * PlanStarted for a new run, awaited before the pass: the pass's first status write (an
   * inventory entry, or its closing write) is what makes the run started, and a manager that
   * dies after it would see a run already under way and never record the Event. Recording it
   * under a name derived from the run (recordOnce) makes a second attempt a no-op. An
   * aborted reconcile ends the POST at once and goes no further: the Event may not be stored,
   * so no write may make the run started (the next pass records it under the same name).
   */
  private async recordPlanStarted(
    instance: Instance,
    planName: string,
    before: PlanStatus | undefined,
    planUid: string,
    signal: AbortSignal,
  ): Promise<void> {
    if (!isNewRun(before, planUid)) return;
    await this.options.events.recordOnce(
      instance,
      'Normal',
      'PlanStarted',
      planStartedMessage(planName),
      planEventId(planName, planUid, 'STARTED'),
      signal,
    );
    signal.throwIfAborted();
  }

  /**
   * PlanFinished / PlanAborted when the pass ended the run, awaited before the status write
   * that ends it (same reasoning as recordPlanStarted: a crash on either side of that write
   * leaves exactly one Event; an aborted reconcile stops before that write, as above).
   * StepFailed stays aggregated and fire-and-forget: it mirrors a step status that keeps the
   * message, a failing step that retries records it again, and its messages vary, so a name
   * per occurrence would buy nothing.
   */
  private async recordPlanOutcome(
    instance: Instance,
    planName: string,
    before: PlanStatus | undefined,
    after: PlanStatus,
    signal: AbortSignal,
  ): Promise<void> {
    const events = this.options.events;
    const was = isNewRun(before, after.uid ?? '') ? undefined : before;
    for (const [i, phase] of (after.phases ?? []).entries()) {
      for (const [j, step] of (phase.steps ?? []).entries()) {
        const old = was?.phases?.[i]?.steps?.[j];
        if (
          (step.status === 'ERROR' || step.status === 'FATAL_ERROR') &&
          (old?.status !== step.status || old.message !== step.message)
        ) {
          events.record(
            instance,
            'Warning',
            'StepFailed',
            `plan ${planName}, phase ${phase.name ?? ''}, step ${step.name ?? ''}: ${step.status}: ${step.message ?? ''}`,
          );
        }
      }
    }
    if (was?.status === after.status) return;
    const id = planEventId(planName, after.uid ?? '', after.status ?? '');
    // PlanStarted and PlanFinished carry KUDO's texts, which its tests assert (kudo-compat.md,
    // Events); why a plan failed is in StepFailed above and in the status.
    if (after.status === 'COMPLETE' || after.status === 'FATAL_ERROR')
      await events.recordOnce(
        instance,
        'Normal',
        'PlanFinished',
        planFinishedMessage(planName, after.status),
        id,
        signal,
      );
    else if (after.status === 'ABORTED')
      await events.recordOnce(
        instance,
        'Warning',
        'PlanAborted',
        `plan ${planName} ${after.message ?? 'was aborted'}`,
        id,
        signal,
      );
    signal.throwIfAborted();
  }

  /** Deletion: cleanup plan (if any), then the inventory, then the finalizer. */
  private async finalize(
    key: string,
    instance: Instance,
    target: Target | Error,
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> {
    if (!hasCleanupFinalizer(instance)) return;
    const session = this.openSession(key, instance, signal);
    try {
      return await this.finalizeWith(key, instance, session, target, signal);
    } finally {
      this.keepUnwritten(key, session);
    }
  }

  private async finalizeWith(
    key: string,
    instance: Instance,
    session: StatusSession,
    target: Target | Error,
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> {
    const ov = await this.operatorVersion(instance, signal).catch(() => undefined);
    const cleanupUid = `cleanup-${instance.metadata.uid ?? ''}`;
    if (ov?.spec?.plans?.[PLAN_CLEANUP]) {
      const before = structuredClone(instance.status?.planStatus?.[PLAN_CLEANUP]);
      await this.recordPlanStarted(instance, PLAN_CLEANUP, before, cleanupUid, signal);
      // The cleanup plan keeps its timer: the Instance is on its way out.
      const ps = await this.runPlan(
        session,
        ov,
        PLAN_CLEANUP,
        cleanupUid,
        target,
        new PassWaits(),
        signal,
      );
      // Before the write that ends the run; the Event is not owned by the Instance, so it
      // outlives it (kudo-compat.md, Events).
      await this.recordPlanOutcome(session.instance, PLAN_CLEANUP, before, ps, signal);
      await session.flush();
      await this.sweepPipePods(session.instance, ov, PLAN_CLEANUP, ps, signal);
      if (!isTerminal(ps.status)) {
        const progressed = progressOf(before) !== progressOf(ps);
        return { requeueAfter: this.waits.next(key, cleanupUid, progressed) };
      }
    }
    const skipTarget = instance.metadata.annotations?.[ANNOTATION_SKIP_TARGET_CLEANUP] === 'true';
    if (skipTarget) {
      const abandoned = session.inventory.filter((e) => e.cluster !== undefined);
      if (abandoned.length > 0) {
        session.forget(abandoned);
        this.options.events.record(
          instance,
          'Warning',
          'TargetCleanupSkipped',
          `${abandoned.length} object(s) in target cluster(s) ${[...new Set(abandoned.map((e) => e.cluster))].join(', ')} were left in place (annotation ${ANNOTATION_SKIP_TARGET_CLEANUP}=true)`,
        );
      }
    }
    const { remaining, problems } = await deleteInventory(
      session,
      (entry) => this.ssaFor(entry, target),
      instance,
      signal,
      this.options.logger,
    );
    if (problems.length > 0) {
      const blocked = `the Instance cannot be removed yet: ${problems.slice(0, 5).join('; ')}. Planwright retries; if the cluster or its Secret is gone for good, let go of its objects: kubectl annotate instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''} ${ANNOTATION_SKIP_TARGET_CLEANUP}=true`;
      setReady(
        session.working,
        instance,
        { status: 'False', reason: 'CleanupBlocked', message: blocked },
        this.now(),
      );
      this.warnOnce(instance, cleanupUid, 'CleanupBlocked', blocked);
    }
    await session.flush();
    if (remaining.length > 0) {
      return { requeueAfter: this.waits.next(key, `${cleanupUid}-inventory`, false) };
    }
    await this.writer.removeFinalizer(session.instance, signal);
    this.waits.forget(key);
    this.options.watches?.releaseAll(key);
    this.options.drift?.forget(readInventory(instance.status?.inventory));
    return undefined;
  }
}

export type { InstanceStatus };
