/**
 * The sentences a person reads when the webhook refuses or warns: what they changed, what is
 * running (plan, phase, step, since when), and the way out — wait and watch, or abort.
 * Parameter values are never quoted: they often carry passwords, and denial messages end up
 * in terminals and audit logs.
 */
import type { Instance, RunningPlan } from '../api/index.ts';

/** `plan "deploy" (IN_PROGRESS, phase "zk", step "app", started 2026-…)` */
export function describeRunning(running: RunningPlan): string {
  const details: string[] = [running.status];
  if (running.phase) details.push(`phase "${running.phase}"`);
  if (running.step) details.push(`step "${running.step}"`);
  if (running.since) {
    details.push(
      `${running.sinceKind === 'started' ? 'started' : 'last updated'} ${running.since}`,
    );
  } else if (!running.reported) {
    details.push('not started by the controller yet');
  }
  if (running.abortRequested) {
    const at = running.abortRequested.at ? ` at ${running.abortRequested.at}` : '';
    details.push(`abort requested by ${running.abortRequested.by}${at}`);
  }
  return `plan "${running.planName}" (${details.join(', ')})`;
}

export function watchCommand(instance: Instance): string {
  return `kubectl get instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''} -w`;
}

export function abortCommand(instance: Instance): string {
  return `kubectl patch instance ${instance.metadata.name ?? ''} -n ${instance.metadata.namespace ?? ''} --type merge -p '{"spec":{"planExecution":{"abort":true}}}'`;
}

/** The way out while `running` blocks a change. */
export function wayOut(instance: Instance, running: RunningPlan): string {
  const wait = `Wait until plan "${running.planName}" is finished (watch it: ${watchCommand(instance)}) and make the change again`;
  if (running.abortRequested) {
    return `${wait}; the abort is requested and the controller will mark the plan ABORTED.`;
  }
  if (running.planName === 'cleanup') return `${wait}.`;
  return `${wait}, or abort the plan first: ${abortCommand(instance)}`;
}

/**
 * The cause next to each offending field. kubectl shows only the causes of a 422 Invalid
 * (`The request is invalid: * <field>: <message>`, and the same lines on top of the reopened
 * editor), not the status message, so the first cause carries everything a person needs:
 * what the change would do, what runs, since when, and the way out. Further fields refer to it.
 */
export function runningCauses(
  instance: Instance,
  running: RunningPlan,
  fields: readonly string[],
  consequence: string,
): Array<{ field: string; message: string; reason: string }> {
  return fields.map((field, index) => ({
    field,
    message:
      index === 0
        ? `${consequence} while ${describeRunning(running)} is running. ${wayOut(instance, running)}`
        : `${consequence} (see ${fields[0] ?? ''})`,
    reason: 'FieldValueForbidden',
  }));
}

export function listPlans(plans: readonly string[]): string {
  return plans.length > 0 ? plans.map((p) => `"${p}"`).join(', ') : '(none)';
}
