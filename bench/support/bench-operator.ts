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
 * Waits until `count` of the namespace's Instances have plan `plan` COMPLETE: one LIST, then a
 * WATCH from its resourceVersion (again LIST + WATCH when the watch ends or fails). Polling
 * with LISTs instead costs the apiserver a full encoding of every Instance per poll, CPU that
 * grows with the run's length and competes with the manager being measured. Fails after
 * `timeoutMs` saying how many were done and the status of one that was not. Returns the
 * number of requests made (LISTs and WATCHes).
 */
export async function waitForPlans(
  client: KubeClient,
  ns: string,
  count: number,
  options: {
    readonly plan?: string;
    readonly timeoutMs?: number;
  } = {},
): Promise<number> {
  const plan = options.plan ?? 'deploy';
  const timeoutMs = options.timeoutMs ?? 1_800_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const path = `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances`;
  const done = new Set<string>();
  const pending = new Map<string, Instance>();
  const see = (i: Instance): void => {
    const name = i.metadata?.name ?? '';
    if (i.status?.planStatus?.[plan]?.status === 'COMPLETE') {
      done.add(name);
      pending.delete(name);
    } else {
      done.delete(name);
      pending.set(name, i);
    }
  };
  const finished = (): boolean => done.size >= count && pending.size === 0;
  let requests = 0;
  while (!deadline.aborted) {
    try {
      requests++;
      const list = await client.request<{
        metadata?: { resourceVersion?: string };
        items: Instance[];
      }>({ path, signal: deadline });
      done.clear();
      pending.clear();
      for (const i of list.items) see(i);
      if (finished()) return requests;
      const enough = new AbortController();
      requests++;
      await client.watch({
        path,
        query: { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
        signal: AbortSignal.any([deadline, enough.signal]),
        inactivityMs: 120_000,
        onEvent: (event) => {
          const { type, object } = event as { type?: string; object?: Instance };
          if (type === 'ERROR') throw new Error(`watch error: ${JSON.stringify(object)}`);
          if (!object || (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED')) return;
          if (type === 'DELETED') {
            done.delete(object.metadata?.name ?? '');
            pending.delete(object.metadata?.name ?? '');
          } else see(object);
          if (finished()) enough.abort();
        },
      });
      if (enough.signal.aborted) return requests;
    } catch (err) {
      if (deadline.aborted) break;
      // A watch that expired (410) or failed: list again after a breath.
      console.error(
        `waitForPlans: ${err instanceof Error ? err.message : String(err)}; listing again`,
      );
      await sleep(250);
    }
  }
  const example = [...pending.values()][0];
  throw new PlansNotDoneError(
    `${done.size} of ${count} Instances in namespace ${ns} have plan ${plan} COMPLETE after ` +
      `${timeoutMs} ms; e.g. ${example?.metadata?.name ?? '?'}: ` +
      `${JSON.stringify(example?.status?.planStatus?.[plan] ?? null)}`,
  );
}
