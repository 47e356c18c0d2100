// The benches' operator: a deploy plan of one Apply step, either 3 ConfigMaps (done at once)
// or one Deployment whose pods count as available only after `minReadySeconds` (a plan that
// waits). The same objects work for Planwright and for KUDO 0.19.
import type { KubeClient } from '../../src/kube/index.ts';
import type { Instance } from '../../src/kudo/api/types.ts';
import { sleep } from '../../src/runtime/time.ts';
import {
  createKudoObject,
  instanceObject,
  serialPlan,
  type InstanceFields,
} from '../../test/support/kudo-objects.ts';
import { pool } from '../pool.ts';

export const OPERATOR = 'bench';
export const OPERATOR_VERSION = 'bench-1.0';

/** Templates of the 3-ConfigMap plan: `{{ .Name }}-0..2` with parameter V. */
export function configMapTemplates(): Record<string, string> {
  const templates: Record<string, string> = {};
  for (const i of [0, 1, 2])
    templates[`cm${i}.yaml`] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-${i}\ndata:\n  v: "{{ .Params.V }}"\n`;
  return templates;
}

/** One Deployment of 1 replica; the plan waits until it is available. */
export function deploymentTemplates(minReadySeconds: number): Record<string, string> {
  return {
    'deploy.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Name }}-web
spec:
  replicas: 1
  minReadySeconds: ${minReadySeconds}
  selector:
    matchLabels:
      app: {{ .Name }}-web
  template:
    metadata:
      labels:
        app: {{ .Name }}-web
    spec:
      containers:
        - name: web
          image: nginx:1.27
          env:
            - name: V
              value: "{{ .Params.V }}"
`,
  };
}

/** Creates the Operator and its OperatorVersion (deploy plan: one step applying `templates`). */
export async function createBenchOperator(
  client: KubeClient,
  ns: string,
  templates: Record<string, string>,
): Promise<void> {
  await createKudoObject(client, ns, 'operators', {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Operator',
    metadata: { name: OPERATOR },
    spec: { description: 'bench' },
  });
  await createKudoObject(client, ns, 'operatorversions', {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'OperatorVersion',
    metadata: { name: OPERATOR_VERSION },
    spec: {
      operator: { name: OPERATOR, kind: 'Operator' },
      version: '1.0',
      parameters: [{ name: 'V', default: 'x' }],
      templates,
      tasks: [{ name: 'all', kind: 'Apply', spec: { resources: Object.keys(templates) } }],
      plans: { deploy: serialPlan([{ name: 's', tasks: ['all'] }]) },
    },
  });
}

/**
 * Creates Instances `<prefix>0 … <prefix>(count-1)` of the bench operator, `concurrency` at a
 * time; `spec` adds fields to an Instance's spec. Returns the number of requests made.
 */
export async function createInstances(
  client: KubeClient,
  ns: string,
  count: number,
  options: {
    readonly concurrency?: number;
    readonly prefix?: string;
    readonly spec?: (i: number) => Omit<InstanceFields, 'labels' | 'namespace'>;
  } = {},
): Promise<number> {
  await pool(count, options.concurrency ?? 16, (i) =>
    createKudoObject(
      client,
      ns,
      'instances',
      instanceObject(`${options.prefix ?? 'b'}${i}`, OPERATOR_VERSION, {
        labels: { 'kudo.dev/operator': OPERATOR },
        ...options.spec?.(i),
      }),
    ),
  );
  return count;
}

export class PlansNotDoneError extends Error {
  override readonly name = 'PlansNotDoneError';
}

/**
 * Lists the namespace's Instances every `intervalMs` until `count` of them have plan `plan`
 * COMPLETE; fails after `timeoutMs` saying how many were done and the status of one that was
 * not. Returns the number of LIST requests made.
 */
export async function waitForPlans(
  client: KubeClient,
  ns: string,
  count: number,
  options: {
    readonly plan?: string;
    readonly intervalMs?: number;
    readonly timeoutMs?: number;
  } = {},
): Promise<number> {
  const plan = options.plan ?? 'deploy';
  const deadline = Date.now() + (options.timeoutMs ?? 1_800_000);
  for (let polls = 1; ; polls++) {
    const list = await client.request<{ items: Instance[] }>({
      path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`,
    });
    const pending = list.items.filter((i) => i.status?.planStatus?.[plan]?.status !== 'COMPLETE');
    if (list.items.length >= count && pending.length === 0) return polls;
    if (Date.now() > deadline) {
      const example = pending[0];
      throw new PlansNotDoneError(
        `${list.items.length - pending.length} of ${count} Instances in namespace ${ns} have ` +
          `plan ${plan} COMPLETE after ${options.timeoutMs ?? 1_800_000} ms; e.g. ` +
          `${example?.metadata?.name ?? '?'}: ${JSON.stringify(example?.status?.planStatus?.[plan] ?? null)}`,
      );
    }
    await sleep(options.intervalMs ?? 250);
  }
}
