/**
 * The child Instance a KudoOperator task wants, and how far it is: KUDO's naming
 * (`instanceName`, else `<parent>-<package>`; OperatorVersion `<package>-[<appVersion>-]<version>`),
 * a plain (non-controller) owner reference to the parent, and the child's scheduled plan
 * judged on the child's own status.
 */
import { isTerminal, KUDO_API_VERSION, type Instance, type TaskSpec } from '../../api/index.ts';
import { OPERATOR_LABEL, operatorVersionName } from '../../package/index.ts';
import { namespacedName } from '../../../kube/index.ts';

export interface ChildTarget {
  readonly name: string;
  readonly namespace: string;
  readonly operatorVersion: string;
  readonly package: string;
}

export function childTarget(spec: TaskSpec, parent: Instance): ChildTarget {
  const pkg = spec.package ?? '';
  return {
    name: spec.instanceName || `${parent.metadata.name ?? ''}-${pkg}`,
    namespace: parent.metadata.namespace ?? '',
    operatorVersion: operatorVersionName(pkg, spec.operatorVersion ?? '', spec.appVersion),
    package: pkg,
  };
}

export function desiredChild(
  target: ChildTarget,
  parent: Instance,
  parameters: Readonly<Record<string, string>>,
): Instance {
  return {
    apiVersion: KUDO_API_VERSION,
    kind: 'Instance',
    metadata: {
      name: target.name,
      namespace: target.namespace,
      labels: { [OPERATOR_LABEL]: target.package },
      ownerReferences: [
        {
          apiVersion: KUDO_API_VERSION,
          kind: 'Instance',
          name: parent.metadata.name ?? '',
          uid: parent.metadata.uid ?? '',
        },
      ],
    },
    spec: { operatorVersion: { name: target.operatorVersion }, parameters: { ...parameters } },
  };
}

/** The merge patch that brings `live` to the wanted OperatorVersion and parameters, if any. */
export function childPatch(
  live: Instance,
  target: ChildTarget,
  parameters: Readonly<Record<string, string>>,
): Record<string, unknown> | undefined {
  const spec: Record<string, unknown> = {};
  if (live.spec?.operatorVersion?.name !== target.operatorVersion) {
    spec['operatorVersion'] = { name: target.operatorVersion };
  }
  const current: Readonly<Record<string, string>> = live.spec?.parameters ?? {};
  const changed = Object.entries(parameters).filter(
    ([k, v]) => !Object.hasOwn(current, k) || current[k] !== v,
  );
  if (changed.length > 0) spec['parameters'] = Object.fromEntries(changed);
  return Object.keys(spec).length > 0 ? { spec } : undefined;
}

export type ChildProgress =
  | { readonly state: 'done' }
  | { readonly state: 'waiting'; readonly message: string }
  | { readonly state: 'failed'; readonly message: string };

/**
 * Done when the child's scheduled plan is terminal and COMPLETE (or nothing is scheduled);
 * FATAL_ERROR or ABORTED fail the parent's step, naming the child and its plan.
 */
export function childProgress(child: Instance): ChildProgress {
  const name = namespacedName(child.metadata);
  const pe = child.spec?.planExecution;
  if (!pe?.planName) return { state: 'done' };
  const plans = child.status?.planStatus ?? {};
  const ps = Object.hasOwn(plans, pe.planName) ? plans[pe.planName] : undefined;
  if (!ps || (ps.uid ?? '') !== (pe.uid ?? '') || !isTerminal(ps.status)) {
    const now = ps && (ps.uid ?? '') === (pe.uid ?? '') ? (ps.status ?? 'PENDING') : 'PENDING';
    const detail = ps && (ps.uid ?? '') === (pe.uid ?? '') && ps.message ? ` (${ps.message})` : '';
    return {
      state: 'waiting',
      message: `child Instance ${name}: plan ${pe.planName} is ${now}${detail}`,
    };
  }
  if (ps.status === 'COMPLETE') return { state: 'done' };
  return {
    state: 'failed',
    message: `child Instance ${name}: plan ${pe.planName} ended ${ps.status ?? ''}${ps.message ? `: ${ps.message}` : ''}; see \`kubectl kudo plan status --instance ${child.metadata.name ?? ''}\``,
  };
}
