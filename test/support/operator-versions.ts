// OperatorVersions for the validating-webhook tests: a valid one with deploy and update plans
// (parameter `foo` triggers deploy, `bar` triggers update), and one with the three problems of
// issue 15's example (a template syntax error, a step naming an unknown task, a default
// outside its enum).
import type { OperatorVersion } from '../../src/kudo/api/index.ts';
import { operatorVersionObject, serialPlan } from './kudo-objects.ts';

export function validOperatorVersion(
  name: string,
  namespace: string,
  operator = 'app',
): OperatorVersion {
  const steps = [{ name: 'config', tasks: ['config'] }];
  return operatorVersionObject(
    name,
    {
      operator: { name: operator, kind: 'Operator' },
      version: '0.1.0',
      templates: {
        'config.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\ndata:\n  foo: {{ .Params.foo | quote }}\n  bar: {{ .Params.bar | quote }}\n',
      },
      tasks: [{ name: 'config', kind: 'Apply', spec: { resources: ['config.yaml'] } }],
      plans: {
        deploy: serialPlan(steps),
        update: serialPlan(steps),
      },
      parameters: [
        { name: 'foo', default: 'a', trigger: 'deploy' },
        { name: 'bar', default: 'b', trigger: 'update' },
      ],
    },
    namespace,
  );
}

export function brokenOperatorVersion(name: string, namespace: string): OperatorVersion {
  return operatorVersionObject(
    name,
    {
      operator: { name: 'broken', kind: 'Operator' },
      version: '0.1.0',
      templates: {
        'config.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\ndata:\n  mode: {{ .Params.MODE }\n',
      },
      tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['config.yaml'] } }],
      plans: {
        deploy: serialPlan([{ name: 'everything', tasks: ['app', 'migrate'] }]),
      },
      parameters: [{ name: 'MODE', default: 'turbo', enum: ['fast', 'safe'], trigger: 'deploy' }],
    },
    namespace,
  );
}
