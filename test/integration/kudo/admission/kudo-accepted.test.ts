// OperatorVersions KUDO's manager accepts and runs are admitted — behind exactly the webhook
// registrations of manifests/ (pointed at a URL, narrowed to the test's namespace), served and
// run by the App as production wires it — with what `package verify` finds as the warnings
// kubectl prints, and the run-time outcome KUDO gives:
// - an invalid template (KUDO's rendering-error-plan-failed case): the Instance is created,
//   its deploy plan ends FATAL_ERROR naming the template, and the OperatorVersion carries a
//   Warning Event with the finding;
// - no spec.operator.name and a parameter nothing uses: deploy runs to COMPLETE;
// - a parameter triggering a plan the package does not define: admitted; changing that
//   parameter on an Instance is refused (as KUDO's Instance webhook refuses it);
// - `kubectl kudo install` (the built CLI) of such a package installs it, printing the warnings.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cp, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { stringify } from 'yaml';
import { App } from '../../../../src/app.ts';
import { atUrl, webhookConfigurations } from '../../../../src/cli/install.ts';
import { KubeClient } from '../../../../src/kube/index.ts';
import type { Instance } from '../../../../src/kudo/api/index.ts';
import { StaticCertificateSource } from '../../../../src/server/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  kubectl,
  testCluster,
  uniqueName,
  type KubectlResult,
} from '../../../support/cluster.ts';
import { installKudoCrds } from '../../../support/kudo.ts';
import { ensureBuiltCli, KUBECTL_KUDO, runBuilt } from '../../cli/built-cli.ts';
import { repositoryRoot } from '../../../../src/localcluster/paths.ts';
import { waitFor } from '../../../support/wait.ts';

const GROUP_PATH = '/apis/kudo.dev/v1beta1';

/** KUDO's test/integration/rendering-error-plan-failed package: `.Params.NonExisting` does not render. */
const renderingError = [
  { apiVersion: 'kudo.dev/v1beta1', kind: 'Operator', metadata: { name: 'invalid' } },
  {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'OperatorVersion',
    metadata: { name: 'invalid-v1' },
    spec: {
      version: '1.0.0',
      operator: { name: 'Toy', kind: 'Operator' },
      templates: {
        'serial.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: serial-{{ .StepName }}\ndata:\n  sleep: "{{ .Params.NonExisting }}"\n',
      },
      tasks: [{ name: 'invalid-task', kind: 'Apply', spec: { resources: ['serial.yaml'] } }],
      parameters: [{ name: 'Sleep', required: true, displayName: 'Sleep Time' }],
      plans: {
        deploy: {
          strategy: 'serial',
          phases: [
            {
              name: 'invalid-phase',
              strategy: 'serial',
              steps: [{ name: 'invalid-step', tasks: ['invalid-task'] }],
            },
          ],
        },
      },
    },
  },
  {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name: 'invalid1', labels: { 'kudo.dev/operator': 'invalid' } },
    spec: { operatorVersion: { name: 'invalid-v1' }, parameters: { Sleep: '30' } },
  },
];

function operatorVersion(name: string, parameters: unknown[]): Record<string, unknown> {
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'OperatorVersion',
    metadata: { name },
    spec: { version: '1.0', parameters, plans: { deploy: {}, update: {} } },
  };
}

function instanceOf(name: string): Record<string, unknown> {
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name },
    spec: { operatorVersion: { name } },
  };
}

function yaml(objects: readonly unknown[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

describe('OperatorVersions KUDO accepts: admitted with warnings, with the run-time outcome KUDO gives', () => {
  let ns: string;
  let app: App;
  let running: Promise<number>;
  const stop = new AbortController();
  const loopback = StaticCertificateSource.forLoopback('kudo-accepted-test');
  const client = new KubeClient(kubeConfig());
  const registered: Array<{ plural: string; name: string }> = [];
  const k = (args: string[], input?: string): Promise<KubectlResult> =>
    kubectl([...args, '-n', ns], input === undefined ? {} : { input });

  beforeAll(async () => {
    await Promise.all([installKudoCrds(), ensureBuiltCli()]);
    ns = await createTestNamespace('kudo-accepted');
    app = new App({
      kubeConfig: kubeConfig(),
      logger: pino({ level: process.env['PW_TEST_LOG'] ?? 'silent' }),
      registry: new Registry(),
      manager: { leaderElection: false, shutdownTimeoutMs: 10_000 },
      webhook: { port: 0, host: '127.0.0.1', tls: loopback.source },
      admission: { controllerUsers: [] },
      controller: { filter: (i) => i.metadata.namespace === ns },
      // As `planwright start` wires it (narrowed to this test's namespace).
      verifyEvents: { namespaces: (namespace) => namespace === ns },
      // The warnings asserted come from a verification that finishes: the admission worker
      // is started below and stays warm (a cold start on a busy machine outlasts the budget).
      render: { admissionIdleMs: 600_000 },
    });
    running = app.start(stop.signal);
    const port = await app.listening;
    // Bounded packages verify on the main thread and start no worker: the packages here that
    // are not bounded must not be the ones that pay for its start.
    await app.admissionPool.warm();
    for (const manifest of await webhookConfigurations()) {
      const mutating = manifest.kind === 'MutatingWebhookConfiguration';
      const config = atUrl(manifest, `https://127.0.0.1:${port}`, loopback.caPem, {
        name: uniqueName(mutating ? 'pw-accepted-m' : 'pw-accepted-v'),
        namespaces: [ns],
      });
      const plural = mutating ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
      await client.request({
        method: 'POST',
        path: `/apis/admissionregistration.k8s.io/v1/${plural}`,
        body: config,
      });
      registered.push({ plural, name: config.metadata?.name ?? '' });
    }
    // Both configurations answer: the OperatorVersion webhook warns (a dry run stores nothing).
    await waitFor('the OperatorVersion webhook to answer with its warnings', async () => {
      const res = await k(
        ['apply', '--dry-run=server', '-f', '-'],
        stringify(operatorVersion('probe', [])),
      );
      return res.code === 0 && res.stderr.includes('package verify error');
    });
  });

  afterAll(async () => {
    for (const { plural, name } of registered) {
      await client
        .request({
          method: 'DELETE',
          path: `/apis/admissionregistration.k8s.io/v1/${plural}/${name}`,
        })
        .catch(() => undefined);
    }
    stop.abort();
    await running;
    client.close();
  });

  const instance = (name: string): Promise<Instance> =>
    client.request<Instance>({ path: `${GROUP_PATH}/namespaces/${ns}/instances/${name}` });

  it('an invalid template: admitted with the warning, the Instance too, and deploy ends FATAL_ERROR naming the template', async () => {
    const res = await k(['apply', '-f', '-'], yaml(renderingError));
    expect(res.stderr).toContain(
      `Warning: OperatorVersion ${ns}/invalid-v1: error: spec.templates[serial.yaml]: error rendering template:`,
    );
    expect(res.code).toBe(0);
    const failed = await waitFor('deploy to end FATAL_ERROR', async () => {
      const plan = (await instance('invalid1')).status?.planStatus?.['deploy'];
      return plan?.status === 'FATAL_ERROR' ? plan : undefined;
    });
    expect(failed.phases?.[0]).toMatchObject({ name: 'invalid-phase', status: 'FATAL_ERROR' });
    expect(JSON.stringify(failed)).toContain('serial.yaml');
    // The finding stays with the OperatorVersion as a Warning Event.
    const event = await waitFor('the Warning Event on the OperatorVersion', async () => {
      const list = await client.request<{
        items: Array<{ type: string; reason: string; message: string }>;
      }>({
        path: `/api/v1/namespaces/${ns}/events`,
        query: { fieldSelector: 'involvedObject.name=invalid-v1' },
      });
      return list.items.find((e) => e.reason === 'PackageVerifyErrors');
    });
    expect(event.type).toBe('Warning');
    expect(event.message).toMatch(
      /^package verify found 2 errors: spec\.templates\[serial\.yaml\]: parameter "NonExisting" in template serial\.yaml is not defined; spec\.templates\[serial\.yaml\]: error rendering template: .*Admitted as KUDO admits it/,
    );
  });

  it('no spec.operator.name and an unused parameter: admitted with the warnings, deploy COMPLETE', async () => {
    const res = await k(
      ['apply', '-f', '-'],
      yaml([operatorVersion('no-operator', [{ name: 'foo' }]), instanceOf('no-operator')]),
    );
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      `Warning: OperatorVersion ${ns}/no-operator: error: spec.operator.name: "spec.operator.name" is required`,
    );
    expect(res.stderr).toContain(
      `Warning: OperatorVersion ${ns}/no-operator: spec.parameters[0]: parameter "foo" defined but not used.`,
    );
    await waitFor('deploy to be COMPLETE', async () => {
      return (await instance('no-operator')).status?.planStatus?.['deploy']?.status === 'COMPLETE';
    });
  });

  it('a parameter triggering an undefined plan: admitted with the warning; changing it on an Instance is refused', async () => {
    const res = await k(
      ['apply', '-f', '-'],
      yaml([
        operatorVersion('bad-trigger', [{ name: 'foo', trigger: 'missing' }]),
        instanceOf('bad-trigger'),
      ]),
    );
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      `Warning: OperatorVersion ${ns}/bad-trigger: error: spec.parameters[0].trigger: plan "missing" used in parameter "foo" is not defined`,
    );
    await waitFor('deploy to be COMPLETE', async () => {
      return (await instance('bad-trigger')).status?.planStatus?.['deploy']?.status === 'COMPLETE';
    });
    const change = await k([
      'patch',
      'instance',
      'bad-trigger',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { parameters: { foo: 'new' } } }),
    ]);
    expect(change.code).not.toBe(0);
    expect(change.stderr).toContain(
      'The request is invalid: spec.parameters.foo: triggers plan "missing", which does not exist',
    );
  });

  it('kubectl kudo install of a package whose parameter triggers an undefined plan: installed, with the warnings printed', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'pw-accepted-')), 'hello-config');
    await cp(join(repositoryRoot(), 'examples', 'hello-config'), dir, { recursive: true });
    await writeFile(
      join(dir, 'params.yaml'),
      stringify({
        apiVersion: 'kudo.dev/v1beta1',
        parameters: [
          { name: 'message', default: 'hi', trigger: 'missing' },
          { name: 'port', type: 'integer', default: 8080 },
        ],
      }),
    );
    const res = await runBuilt(
      KUBECTL_KUDO,
      ['install', dir, '--instance', 'hello', '--namespace', ns],
      {
        env: { KUBECONFIG: testCluster().kubeconfigPath },
      },
    );
    expect(res.stderr).toContain(
      `Warning: OperatorVersion ${ns}/hello-config-0.1.0: error: spec.parameters[0].trigger: plan "missing" used in parameter "message" is not defined`,
    );
    expect(res.code).toBe(0);
    await waitFor('deploy to be COMPLETE', async () => {
      return (await instance('hello')).status?.planStatus?.['deploy']?.status === 'COMPLETE';
    });
  });
});
