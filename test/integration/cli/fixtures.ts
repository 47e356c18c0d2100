// What the CLI tests install through the API (not through the CLI under test): an Operator and
// an OperatorVersion whose plans finish, never finish, or fail fatally on demand (Dummy tasks).
import type { KubeClient } from '../../../src/kube/index.ts';
import type { Operator, OperatorVersion } from '../../../src/kudo/api/types.ts';
import {
  createKudoObject,
  instanceObject,
  operatorVersionObject,
  serialPlan,
} from '../../support/kudo-objects.ts';

export const DEMO_OPERATOR = 'cli-demo';
export const DEMO_OV = 'cli-demo-1.0.0';

export function demoObjects(namespace: string): [Operator, OperatorVersion] {
  return [
    {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Operator',
      metadata: { name: DEMO_OPERATOR, namespace },
      spec: { description: 'CLI test operator' },
    },
    operatorVersionObject(
      DEMO_OV,
      {
        operator: { name: DEMO_OPERATOR, kind: 'Operator' },
        version: '1.0.0',
        parameters: [
          { name: 'greeting', default: 'hi', required: false },
          { name: 'size', default: '1', required: false, 'value-type': 'integer' },
          { name: 'locked', default: 'x', required: false, immutable: true },
        ],
        templates: {
          'cm.yaml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm\ndata:\n  greeting: {{ .Params.greeting | quote }}\n',
        },
        tasks: [
          { name: 'apply-cm', kind: 'Apply', spec: { resources: ['cm.yaml'] } },
          { name: 'never-done', kind: 'Dummy', spec: { done: false } },
          { name: 'fatal', kind: 'Dummy', spec: { wantErr: true, fatal: true } },
        ],
        plans: {
          deploy: serialPlan([{ name: 'config', tasks: ['apply-cm'] }]),
          slow: {
            strategy: 'serial',
            phases: [
              {
                name: 'wait',
                strategy: 'serial',
                steps: [{ name: 'forever', tasks: ['never-done'] }],
              },
            ],
          },
          broken: serialPlan([{ name: 'explode', tasks: ['fatal'] }]),
        },
      },
      namespace,
    ),
  ];
}

export async function createDemo(client: KubeClient, namespace: string): Promise<void> {
  const [operator, ov] = demoObjects(namespace);
  await createKudoObject(client, namespace, 'operators', operator);
  await createKudoObject(client, namespace, 'operatorversions', ov);
}

export async function createDemoInstance(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<void> {
  await createKudoObject(
    client,
    namespace,
    'instances',
    instanceObject(name, DEMO_OV, { labels: { 'kudo.dev/operator': DEMO_OPERATOR } }),
  );
}
