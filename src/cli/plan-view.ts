/**
 * How plans of an Instance are shown: which plan is "active" (KUDO's last executed plan), the
 * `plan status` tree and the `plan history` list, in KUDO's words and layout.
 */
import type { Instance, OperatorVersion, PlanStatus } from '../kudo/api/index.ts';
import { renderTree, type TreeNode } from './output/tree.ts';

/** Statuses of a run that is not over yet (KUDO's IsRunning). */
export const RUNNING_STATUSES: ReadonlySet<string> = new Set(['PENDING', 'IN_PROGRESS', 'ERROR']);

/** Statuses that end a run badly: `--wait` fails on them. */
export const FAILED_STATUSES: ReadonlySet<string> = new Set(['FATAL_ERROR', 'ABORTED']);

function entries(instance: Instance): Array<[string, PlanStatus]> {
  return Object.entries(instance.status?.planStatus ?? {});
}

/**
 * The plan `plan status` and `--wait` look at: the running one, else the one updated last.
 * Undefined when no plan ever ran.
 */
export function lastExecutedPlan(instance: Instance): PlanStatus | undefined {
  const all = entries(instance).map(([key, s]) => ({ ...s, name: s.name ?? key }));
  if (all.every((s) => !s.status || s.status === 'NEVER_RUN')) return undefined;
  const running = all.find((s) => RUNNING_STATUSES.has(s.status ?? ''));
  if (running) return running;
  let last: PlanStatus | undefined;
  const time = (p: PlanStatus): number =>
    p.lastUpdatedTimestamp ? Date.parse(p.lastUpdatedTimestamp) : Number.NEGATIVE_INFINITY;
  for (const s of all) {
    if (!s.status || s.status === 'NEVER_RUN') continue;
    if (!last || time(s) > time(last)) last = s;
  }
  return last;
}

/** `2021-05-01 10:00:00` (UTC), Go's "2006-01-02 15:04:05" of a metav1.Time. */
export function formatTimestamp(iso: string, separator = ' '): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toISOString().slice(0, 19).replace('T', separator);
}

const message = (text: string | undefined): string => (text ? ` (${text})` : '');

/** The text `plan status` prints (heading, tree, blank line), or KUDO's "no plan" line. */
export function renderPlanStatus(
  instance: Instance,
  operatorVersion: OperatorVersion,
  namespace: string,
): string {
  const name = instance.metadata.name ?? '';
  const active = lastExecutedPlan(instance);
  if (!active) return `No plan ever run for instance - nothing to show for instance ${name}\n`;
  const plans = operatorVersion.spec?.plans ?? {};
  const phaseStrategy = (plan: string, phase: string | undefined): string =>
    plans[plan]?.phases?.find((p) => p.name === phase)?.strategy ?? '';
  const planNodes: TreeNode[] = Object.keys(plans)
    .sort()
    .map((planName) => {
      const plan = plans[planName] ?? {};
      const strategy = plan.strategy ?? '';
      if (planName !== active.name) {
        return {
          text: `Plan ${planName} (${strategy} strategy) [NOT ACTIVE]`,
          children: (plan.phases ?? []).map((phase) => ({
            text: `Phase ${phase.name ?? ''} (${phase.strategy ?? ''} strategy) [NOT ACTIVE]`,
            children: (phase.steps ?? []).map((step) => ({
              text: `Step ${step.name ?? ''} [NOT ACTIVE]`,
            })),
          })),
        };
      }
      const updated = active.lastUpdatedTimestamp
        ? `, last updated ${formatTimestamp(active.lastUpdatedTimestamp)}`
        : '';
      return {
        text: `Plan ${planName} (${strategy} strategy) [${active.status ?? ''}]${message(active.message)}${updated}`,
        children: (active.phases ?? []).map((phase) => ({
          text: `Phase ${phase.name ?? ''} (${phaseStrategy(planName, phase.name)} strategy) [${phase.status ?? ''}]${message(phase.message)}`,
          children: (phase.steps ?? []).map((step) => ({
            text: `Step ${step.name ?? ''} [${step.status ?? ''}]${message(step.message)}`,
          })),
        })),
      };
    });
  const root: TreeNode = {
    text: `${name} (Operator-Version: "${instance.spec?.operatorVersion?.name ?? ''}" Active-Plan: "${active.name ?? ''}")`,
    children: planNodes,
  };
  return `Plan(s) for "${name}" in namespace "${namespace}":\n${renderTree([root])}\n`;
}

/** The text `plan history` prints: one branch per plan of status.planStatus, by name. */
export function renderPlanHistory(instance: Instance): string {
  const nodes = entries(instance)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, plan]) => {
      let text = 'never run';
      if (plan.lastUpdatedTimestamp) {
        text = `last finished run at ${formatTimestamp(plan.lastUpdatedTimestamp, 'T')} (${plan.status ?? ''})`;
      } else if (RUNNING_STATUSES.has(plan.status ?? '')) {
        text = 'is running';
      } else if (plan.status) {
        text = plan.status;
      }
      return { text: `${plan.name ?? key} (${text})` };
    });
  return `${renderTree(nodes)}\n`;
}
