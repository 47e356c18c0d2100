/**
 * The Instance reconciler: level-triggered execution of the plan `spec.planExecution`
 * schedules. Each pass starts from the Instance the runtime hands it (its cache's freshest
 * copy), reads its status's shape once, resolves its target cluster, and chooses the job:
 * forget it (gone, or not ours), finalize it (being deleted: finalize.ts), or run it
 * (live.ts: the scheduled plan, plan-run.ts; Ready, readiness.ts; watches and drift,
 * keep.ts). One status session per pass writes the status only when it changed.
 *
 * One reconciler serves one term of a shard (`forTerm`): what it remembers between passes
 * (memory.ts) starts empty with each term.
 */
import { ApiError, namespacedName } from '../../kube/index.ts';
import type { ReconcileResult, Reconciler } from '../../runtime/index.ts';
import type { ShapeProblem, Instance } from '../api/index.ts';
import { describeStatusProblems, readStatus } from '../api/index.ts';
import { finalize } from './finalize.ts';
import { hasCleanupFinalizer } from './finalizer.ts';
import { dropOutOfScope } from './inventory-scope.ts';
import { InstanceWriter } from './instance-api.ts';
import { reconcileLive } from './live.ts';
import { TermMemory } from './memory.ts';
import { openPass, type Engine, type EngineContext, type Pass } from './pass.ts';
import { PipePodSweeper } from './pipe-pods.ts';
import { StatusSession } from './session.ts';
import type { Target } from './targets.ts';
import type { HomeWriter } from './acting-as.ts';
import type { ServerSideApply } from '../../kube/index.ts';

/** The engine's context as the controller gives it (the name the controller knows it by). */
export type InstanceReconcilerOptions = EngineContext;

export class InstanceReconciler {
  private readonly engine: Engine;

  /**
   * A reconciler for one term (`term` aborts when it ends): the context as given, and this
   * term's own memory.
   */
  constructor(ctx: EngineContext, term: AbortSignal) {
    this.engine = {
      ctx,
      writer: new InstanceWriter(ctx.client),
      pipePods: new PipePodSweeper(ctx.logger),
      memory: new TermMemory({ minMs: ctx.waitMinMs ?? 1_000, maxMs: ctx.waitMaxMs ?? 60_000 }),
      drift: ctx.newDrift?.(term),
    };
  }

  /** The reconcile function of a new term: the same context, empty memory. */
  static forTerm(ctx: EngineContext, term: AbortSignal): Reconciler<Instance> {
    return new InstanceReconciler(ctx, term).reconcile;
  }

  readonly reconcile = async (
    key: string,
    signal: AbortSignal,
    cached: Instance | undefined,
  ): Promise<ReconcileResult | void> => {
    try {
      return await this.reconcileOnce({ key, signal, cached });
    } catch (err) {
      // A write based on a cache that had not seen our previous write yet: look again shortly.
      if (err instanceof ApiError && err.statusCode === 409) {
        this.engine.ctx.logger.debug(
          { key, err },
          'conflict writing the Instance; retrying from fresh state',
        );
        return { requeueAfter: 200 };
      }
      throw err;
    }
  };

  private async reconcileOnce(request: {
    key: string;
    signal: AbortSignal;
    cached: Instance | undefined;
  }): Promise<ReconcileResult | void> {
    const { key, signal, cached } = request;
    const { engine } = this;
    const { ctx } = engine;
    if (!cached || (ctx.filter && !ctx.filter(cached))) {
      engine.memory.forget(key);
      ctx.watches?.releaseAll(key);
      engine.drift?.forgetInstance(key);
      return;
    }
    // The status is stored untyped: read its shape once, here, for the whole pass.
    const { instance, problems } = readStatus(cached);
    const malformed = problems.length > 0;
    if (malformed) {
      this.reportMalformedStatus(instance, problems);
      // The run's stored outcome may be what was left out: "finished, wait for the cache"
      // would wait forever; the pass reads it afresh (and reruns the plan if its status is gone).
      engine.memory.finished.delete(key);
    }
    const deleting = instance.metadata.deletionTimestamp !== undefined;
    if (deleting && !hasCleanupFinalizer(instance)) return;
    const home = ctx.identities?.writerFor(instance) ?? { ssa: ctx.ssa };
    const target = await this.target(instance, home, signal);
    // A target cluster gets a bounded share of the workers: a slow one cannot take them all.
    const leave = ctx.targets
      ? ctx.targets.tryEnter(target instanceof Error ? undefined : target.cluster)
      : (): void => undefined;
    if (!leave) return { requeueAfter: 250 + Math.floor(Math.random() * 500) };
    try {
      const pass = this.openPass({
        key,
        signal,
        target,
        home: home instanceof Error ? home : home.ssa,
        instance,
      });
      // A status part of the wrong shape was left out: write the status back in its shape.
      // (Known from the read above, not by comparing with the cache, which may hold a newer
      // object now.)
      if (malformed && !deleting) pass.session.repair();
      // The inventory is a claim the tenant can write: what lies outside the posture goes first.
      dropOutOfScope(pass);
      try {
        return await (deleting ? finalize(pass) : reconcileLive(pass));
      } finally {
        this.keepUnwritten(pass);
      }
    } finally {
      leave();
    }
  }

  /**
   * The Instance's target, or why it cannot be used (shown in the step that would apply). The
   * home cluster is written with the Instance's identity (`home`); a target cluster with the
   * credentials of its kubeconfig, which are already the tenant's.
   */
  private async target(
    instance: Instance,
    home: HomeWriter | Error,
    signal: AbortSignal,
  ): Promise<Target | Error> {
    const { targets, ssa } = this.engine.ctx;
    let target: Target;
    try {
      target = targets ? await targets.resolve(instance, signal) : { cluster: undefined, ssa };
    } catch (err) {
      if (signal.aborted) throw err;
      return err instanceof Error ? err : new Error(String(err));
    }
    if (target.cluster !== undefined) return target;
    if (home instanceof Error) return home;
    return { ...target, ssa: home.ssa, actingAs: home.actingAs };
  }

  /**
   * A status of the wrong shape names the Instance and the fields (log and Warning Event,
   * aggregated by the Event sink); the pass goes on as if those parts were absent.
   */
  private reportMalformedStatus(instance: Instance, problems: readonly ShapeProblem[]): void {
    const message = `status of Instance ${namespacedName(instance.metadata)} has fields of the wrong shape, read as absent and rewritten by the controller: ${describeStatusProblems(problems)}`;
    this.engine.ctx.logger.warn(message);
    this.engine.ctx.events.record(instance, 'Warning', 'MalformedStatus', message);
  }

  /** A pass with a status session that carries what an earlier session could not write. */
  private openPass(start: {
    key: string;
    signal: AbortSignal;
    target: Target | Error;
    home: ServerSideApply | Error;
    instance: Instance;
  }): Pass {
    const { engine } = this;
    const session = new StatusSession(start.instance, engine.writer, engine.ctx.now, start.signal);
    const left = engine.memory.unwritten.get(start.key);
    if (left) session.adopt(left);
    return openPass({
      engine,
      key: start.key,
      signal: start.signal,
      target: start.target,
      home: start.home,
      session,
    });
  }

  private keepUnwritten(pass: Pass): void {
    const left = pass.session.unwritten;
    const unwritten = this.engine.memory.unwritten;
    if (left.length === 0) unwritten.delete(pass.key);
    else unwritten.set(pass.key, [...left]);
  }
}
