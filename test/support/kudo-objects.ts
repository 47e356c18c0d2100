// kudo.dev objects as tests write them, built without cluster access (unit and integration
// tests alike), and created through a KubeClient: the parts most tests write the same way.
import type { KubeClient } from '../../src/kube/index.ts';
import type {
  Instance,
  InstanceSpec,
  OperatorVersion,
  OperatorVersionSpec,
  Parameter,
  PhaseStatus,
  Plan,
  Step,
} from '../../src/kudo/api/index.ts';

/** A plan of one serial phase `main` running `steps` in order: the shape of most test packages. */
export function serialPlan(steps: Step[]): Plan {
  return { strategy: 'serial', phases: [{ name: 'main', strategy: 'serial', steps }] };
}

/** A plan of one parallel phase `main` running all `steps` at once. */
export function parallelPlan(steps: Step[]): Plan {
  return { strategy: 'parallel', phases: [{ name: 'main', strategy: 'parallel', steps }] };
}

/** An OperatorVersion named `name` (in `namespace`, or the one it is created in). */
export function operatorVersionObject(
  name: string,
  spec: OperatorVersionSpec,
  namespace?: string,
): OperatorVersion {
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'OperatorVersion',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec,
  };
}

/** A phase's status whose steps all stand where the phase does (NEVER_RUN, COMPLETE …). */
export function phaseStatus(name: string, status: string, steps: readonly string[]): PhaseStatus {
  return { name, status, steps: steps.map((step) => ({ name: step, status })) };
}

/**
 * An OperatorVersion (operator `name`, version 1.0) whose deploy plan applies each template
 * in a serial step of its own, in the order given: task `t<i>` in step `s<i>`.
 */
export function applyStepsOperatorVersion(
  name: string,
  templates: Record<string, string>,
  extra: { readonly namespace?: string; readonly parameters?: Parameter[] } = {},
): OperatorVersion {
  const files = Object.keys(templates);
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'OperatorVersion',
    metadata: { name, ...(extra.namespace ? { namespace: extra.namespace } : {}) },
    spec: {
      operator: { name, kind: 'Operator' },
      version: '1.0',
      parameters: extra.parameters ?? [],
      templates,
      tasks: files.map((file, i) => ({
        name: `t${i}`,
        kind: 'Apply',
        spec: { resources: [file] },
      })),
      plans: { deploy: serialPlan(files.map((_, i) => ({ name: `s${i}`, tasks: [`t${i}`] }))) },
    },
  };
}

/** What an Instance may carry besides its name and OperatorVersion. */
export interface InstanceFields extends Omit<InstanceSpec, 'operatorVersion'> {
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
}

/** An Instance of OperatorVersion `operatorVersion` (in the Instance's namespace). */
export function instanceObject(
  name: string,
  operatorVersion: string,
  fields: InstanceFields = {},
): Instance {
  const { namespace, labels, ...spec } = fields;
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
    spec: { operatorVersion: { name: operatorVersion }, ...spec },
  };
}

/** POSTs a kudo.dev object of `plural` into `namespace` (errors reject, as the client's). */
export async function createKudoObject(
  client: KubeClient,
  namespace: string,
  plural: 'operators' | 'operatorversions' | 'instances',
  body: object,
): Promise<void> {
  await client.request({
    method: 'POST',
    path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/${plural}`,
    body,
  });
}
