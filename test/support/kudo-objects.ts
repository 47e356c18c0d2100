// kudo.dev objects as tests write them, built without cluster access (unit and integration
// tests alike), and created through a KubeClient: the parts most tests write the same way.
import type { KubeClient } from '../../src/kube/index.ts';
import type { Instance, InstanceSpec, Plan, Step } from '../../src/kudo/api/index.ts';

/** A plan of one serial phase `main` running `steps` in order: the shape of most test packages. */
export function serialPlan(steps: Step[]): Plan {
  return { strategy: 'serial', phases: [{ name: 'main', strategy: 'serial', steps }] };
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
