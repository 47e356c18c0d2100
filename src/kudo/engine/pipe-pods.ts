/**
 * Deleting pipe pods once their step is recorded COMPLETE (docs/packages.md "Pipe and
 * KudoOperator tasks"). The Pipe task itself never deletes
 * its pod: a pod deleted before the step's COMPLETE reached the API server would make a
 * retried pass (after a crash or a conflict) find no pod and start over. So the engine calls
 * {@link PipePodSweeper.sweep} after each successful status write; it deletes the pod of
 * every COMPLETE Pipe step of the run (Background propagation, NotFound is fine, the deletion
 * is not awaited) once per process — after a restart once more, which finishes a deletion the
 * crash interrupted. It reads before it deletes, so a restart with the pods long gone writes
 * nothing, and it deletes only this Instance's pipe pods (a pod of that name without the
 * pipe-pod annotation, or of another Instance whose name sanitises to the same pod name, is
 * someone else's).
 */
import type { Logger } from 'pino';
import { describeObject, ResourceManager, type ServerSideApply } from '../../kube/index.ts';
import { BoundedMap } from '../../runtime/index.ts';
import type { Instance, OperatorVersion, Plan, PlanStatus } from '../api/index.ts';
import { pipePodName } from '../package/index.ts';
import { ownedByInstance } from '../render/index.ts';
import { PIPE_POD_ANNOTATION } from '../tasks/index.ts';

const REMEMBERED = 4096;

/** The run whose COMPLETE Pipe steps' pods go. */
export interface PipeSweep {
  /** Who deletes the pods (the Instance's identity in the home cluster). */
  readonly ssa: ServerSideApply;
  readonly instance: Instance;
  readonly ov: OperatorVersion;
  readonly planName: string;
  readonly plan: Plan | undefined;
  readonly status: PlanStatus;
  readonly signal: AbortSignal;
}

export class PipePodSweeper {
  /** Pods already deleted (Instance uid, run uid, pod name); oldest forgotten first. */
  private readonly deleted = new BoundedMap<string, true>(REMEMBERED);

  constructor(private readonly logger: Logger) {}

  async sweep(run: PipeSweep): Promise<void> {
    const { ssa, instance, ov, planName, plan, status, signal } = run;
    if (!plan) return;
    const tasks = new Map((ov.spec?.tasks ?? []).map((t) => [t.name, t]));
    const pods: string[] = [];
    (plan.phases ?? []).forEach((phase, i) => {
      const phaseStatus = status.phases?.[i];
      (phase.steps ?? []).forEach((step, j) => {
        if (phaseStatus?.steps?.[j]?.status !== 'COMPLETE') return;
        for (const task of step.tasks ?? []) {
          if (tasks.get(task)?.kind !== 'Pipe') continue;
          pods.push(
            pipePodName({
              instance: instance.metadata.name ?? '',
              plan: planName,
              // As the step runner names them (and planPipes): unnamed means ''.
              phase: phase.name ?? '',
              step: step.name ?? '',
              task,
            }),
          );
        }
      });
    });
    for (const name of pods) {
      const key = JSON.stringify([instance.metadata.uid ?? '', status.uid ?? '', name]);
      if (this.deleted.has(key)) continue;
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: instance.metadata.namespace ?? '' },
      };
      try {
        // Left alone unless it is a pipe pod of this Instance: another Instance whose name
        // sanitises alike has a pod of the same name. One already going is not deleted again.
        await new ResourceManager(ssa).delete(
          {
            object: pod,
            skip: (live) =>
              live.metadata?.annotations?.[PIPE_POD_ANNOTATION] !== 'true' ||
              !ownedByInstance(live, instance),
          },
          signal,
        );
      } catch (err) {
        if (signal.aborted) throw err;
        this.logger.warn(
          { pod: describeObject(pod), err },
          'could not delete a pipe pod after its step completed; trying again on the next pass',
        );
        continue;
      }
      this.deleted.set(key, true);
    }
  }
}
