// The validating webhooks behind exactly the registrations manifests/ holds (pointed at a URL
// and narrowed to the test's namespace), served by the App as production wires it, called by
// the real apiserver, driven with the real kubectl:
// - an Instance change that another mutating webhook (registered here, called after ours)
//   turns into a running-plan collision is refused by the final guard with the same causes;
// - an OperatorVersion with a template syntax error, a step naming an unknown task and a
//   default outside its enum is admitted at `kubectl apply` (KUDO admits it) with the three
//   problems as the warnings kubectl prints;
// - changing an OperatorVersion in use is admitted with a warning naming the Instance;
// - deleting an OperatorVersion or Operator in use is refused naming the Instance;
// - every path registered in manifests/ (both variants) is served.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { stringify } from 'yaml';
import { App } from '../../../../src/app.ts';
import { atUrl, MANIFESTS_DIR, webhookConfigurations } from '../../../../src/cli/install.ts';
import { renderKustomization } from '../../../../src/cli/kustomize.ts';
import { ApiError, KubeClient } from '../../../../src/kube/index.ts';
import type { Instance } from '../../../../src/kudo/api/index.ts';
import { StaticCertificateSource, patch, allow } from '../../../../src/server/index.ts';
import {
  createTestNamespace,
  kubeConfig,
  kubectl,
  uniqueName,
  type KubectlResult,
} from '../../../support/cluster.ts';
import { httpsRequest } from '../../../support/https.ts';
import { installKudoCrds } from '../../../support/kudo.ts';
import { brokenOperatorVersion, validOperatorVersion } from '../../../support/operator-versions.ts';
import { waitFor } from '../../../support/wait.ts';
import { instanceReview, loopbackWebhookServer } from '../../../support/admission.ts';

const GROUP_PATH = '/apis/kudo.dev/v1beta1';

describe('validating webhooks through the real apiserver and kubectl', () => {
  let ns: string;
  let app: App;
  let running: Promise<number>;
  const appStop = new AbortController();
  let port: number;
  const loopback = StaticCertificateSource.forLoopback('validating-test');
  const injectorTls = StaticCertificateSource.forLoopback('injector-test');
  const injector = loopbackWebhookServer(injectorTls.source, pino({ level: 'silent' }));
  const injectorStop = new AbortController();
  const kc = kubeConfig();
  const client = new KubeClient(kc);
  const registered: Array<{ kind: string; name: string }> = [];
  const k = (args: string[], input?: string): Promise<KubectlResult> =>
    kubectl([...args, '-n', ns], input === undefined ? {} : { input });

  async function register(config: Record<string, unknown>): Promise<void> {
    const kind = String(config['kind']);
    const plural =
      kind === 'MutatingWebhookConfiguration'
        ? 'mutatingwebhookconfigurations'
        : 'validatingwebhookconfigurations';
    await client.request({
      method: 'POST',
      path: `/apis/admissionregistration.k8s.io/v1/${plural}`,
      body: config,
    });
    registered.push({ kind: plural, name: String((config['metadata'] as { name: string }).name) });
  }

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('validating');
    app = new App({
      kubeConfig: kc,
      logger: pino({ level: process.env['PW_TEST_LOG'] ?? 'silent' }),
      registry: new Registry(),
      manager: { leaderElection: false, shutdownTimeoutMs: 10_000 },
      webhook: { port: 0, host: '127.0.0.1', tls: loopback.source },
      admission: { controllerUsers: [] },
      // Admission only: the test writes plan status itself.
      controller: { filter: () => false },
      // The warnings asserted come from a verification that finishes: the admission worker
      // is started below and stays warm (a cold start on a busy machine outlasts the budget).
      render: { admissionIdleMs: 600_000 },
    });
    running = app.start(appStop.signal);
    port = await app.listening;
    // Bounded packages verify on the main thread and start no worker: the packages here that
    // are not bounded must not be the ones that pay for its start.
    await app.admissionPool.warm();
    // Exactly what manifests/webhook holds, at our URL, for this namespace only.
    for (const manifest of await webhookConfigurations()) {
      await register(
        atUrl(manifest, `https://127.0.0.1:${port}`, loopback.caPem, {
          name: uniqueName(`pw-${manifest.kind === 'MutatingWebhookConfiguration' ? 'm' : 'v'}`),
          namespaces: [ns],
        }),
      );
    }
    // Another product's mutating webhook, called after ours (configurations run in name
    // order): on Instances labelled inject=yes it changes parameter `bar`.
    injector.registerMutating('inject', (request) => {
      const labels = (request.object?.['metadata'] as { labels?: Record<string, string> })?.labels;
      if (labels?.['inject'] !== 'yes') return allow();
      return patch([{ op: 'add', path: '/spec/parameters/bar', value: 'injected' }]);
    });
    const { port: injectorPort } = await injector.listen(injectorStop.signal);
    await register({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: uniqueName('zz-other-product') },
      webhooks: [
        {
          name: 'inject.other.example.com',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          reinvocationPolicy: 'Never',
          namespaceSelector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'In', values: [ns] },
            ],
          },
          rules: [
            {
              apiGroups: ['kudo.dev'],
              apiVersions: ['v1beta1'],
              resources: ['instances'],
              operations: ['UPDATE'],
            },
          ],
          clientConfig: {
            url: `https://127.0.0.1:${injectorPort}/mutate/inject`,
            caBundle: Buffer.from(injectorTls.caPem).toString('base64'),
          },
        },
      ],
    });
    // The Operator and a valid OperatorVersion (admitted by the OperatorVersion webhook once
    // the registration is active: until then the apiserver may not call it yet).
    await k(
      ['apply', '-f', '-'],
      stringify({
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Operator',
        metadata: { name: 'app' },
        spec: {},
      }),
    );
    await waitFor('the OperatorVersion webhook to warn about a broken package', async () => {
      const res = await k(
        ['apply', '--dry-run=server', '-f', '-'],
        stringify(brokenOperatorVersion('probe', ns)),
      );
      return res.code === 0 && res.stderr.includes('package verify errors');
    });
    const res = await k(['apply', '-f', '-'], stringify(validOperatorVersion('app-1', ns)));
    if (res.code !== 0) throw new Error(res.stderr);
  });

  afterAll(async () => {
    for (const { kind, name } of registered) {
      await client
        .request({
          method: 'DELETE',
          path: `/apis/admissionregistration.k8s.io/v1/${kind}/${name}`,
        })
        .catch(() => undefined);
    }
    injectorStop.abort();
    await injector.stop();
    appStop.abort();
    await running;
    client.close();
  });

  async function instance(name: string): Promise<Instance> {
    return client.request<Instance>({ path: `${GROUP_PATH}/namespaces/${ns}/instances/${name}` });
  }

  /** Creates an Instance and reports its deploy run IN_PROGRESS (as the controller would). */
  async function runningInstance(name: string): Promise<Instance> {
    const created = await k(
      ['apply', '-f', '-'],
      stringify({
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name },
        spec: { operatorVersion: { name: 'app-1' }, parameters: { foo: 'x' } },
      }),
    );
    if (created.code !== 0) throw new Error(created.stderr);
    const uid = (await instance(name)).spec?.planExecution?.uid ?? '';
    expect(uid).not.toBe('');
    const status = {
      planStatus: {
        deploy: {
          name: 'deploy',
          uid,
          status: 'IN_PROGRESS',
          startedAt: '2026-11-21T10:00:00Z',
          phases: [
            {
              name: 'main',
              status: 'IN_PROGRESS',
              steps: [{ name: 'config', status: 'IN_PROGRESS' }],
            },
          ],
        },
      },
    };
    const res = await k([
      'patch',
      'instance',
      name,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status }),
    ]);
    if (res.code !== 0) throw new Error(res.stderr);
    return instance(name);
  }

  it('refuses a running-plan collision that another mutating webhook made of a label change, with the causes', async () => {
    const before = await runningInstance('busy');
    // Without the other webhook's change, a label change passes.
    const plain = await k(['label', 'instance', 'busy', 'team=a']);
    expect(plain.stderr).toBe('');
    expect(plain.code).toBe(0);

    const res = await k(['label', 'instance', 'busy', 'inject=yes']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('The request is invalid: spec.parameters.bar: ');
    expect(res.stderr).toContain(
      'spec.parameters.bar: this change would schedule plan "update" while plan "deploy" (IN_PROGRESS, phase "main", step "config", started 2026-11-21T10:00:00Z) is running.',
    );
    // The denial came from the final guard (our mutating webhook saw only a label).
    let err: unknown;
    await client
      .request({
        method: 'PATCH',
        path: `${GROUP_PATH}/namespaces/${ns}/instances/busy`,
        body: { metadata: { labels: { inject: 'yes' } } },
        contentType: 'application/merge-patch+json',
      })
      .catch((e: unknown) => (err = e));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).statusCode).toBe(422);
    expect((err as ApiError).message).toContain(
      'admission webhook "instance-validation.planwright.dev" denied the request: Instance',
    );
    const after = await instance('busy');
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.labels?.['inject']).toBeUndefined();
  });

  it('admits an OperatorVersion with a template syntax error, an unknown task and a default outside its enum, printing the three problems as warnings', async () => {
    const res = await k(['apply', '-f', '-'], stringify(brokenOperatorVersion('broken-0.1.0', ns)));
    expect(res.code).toBe(0);
    const warnings = res.stderr.split('\n').filter((line) => line.startsWith('Warning: '));
    expect(warnings).toEqual([
      `Warning: OperatorVersion ${ns}/broken-0.1.0 has 3 package verify errors; admitted as KUDO admits it: what they affect fails when a plan runs (kubectl kudo package verify <folder> reports the same).`,
      `Warning: OperatorVersion ${ns}/broken-0.1.0: error: spec.parameters[0].default: parameter "MODE" has an invalid default value: value is "turbo", but only allowed values are [fast safe]`,
      `Warning: OperatorVersion ${ns}/broken-0.1.0: error: spec.plans[deploy].phases[0].steps[0].tasks[1]: task "migrate" in plan "deploy" is not defined`,
      `Warning: OperatorVersion ${ns}/broken-0.1.0: error: spec.templates[config.yaml]: template file "config.yaml" reports the following error: template: config.yaml:6: unexpected "}" in operand`,
    ]);
    expect((await k(['get', 'operatorversion', 'broken-0.1.0'])).code).toBe(0);
  });

  it('admits a spec change of an OperatorVersion in use with a warning naming the Instance', async () => {
    await runningInstance('user').catch(() => undefined);
    const changed = validOperatorVersion('app-1', ns);
    changed.spec!.parameters![0]!.default = 'changed';
    const res = await k(['apply', '-f', '-'], stringify(changed));
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`Warning: OperatorVersion ${ns}/app-1 is used by`);
    expect(res.stderr).toContain(`${ns}/user`);
  });

  it('refuses deleting an OperatorVersion or Operator in use, naming the Instances; allows it once unused', async () => {
    const ovRes = await k(['delete', 'operatorversion', 'app-1']);
    expect(ovRes.code).not.toBe(0);
    expect(ovRes.stderr).toContain(
      `Error from server (Forbidden): admission webhook "operatorversion-validation.planwright.dev" denied the request: OperatorVersion ${ns}/app-1 is used by`,
    );
    expect(ovRes.stderr).toContain(`${ns}/busy`);
    const opRes = await k(['delete', 'operator', 'app']);
    expect(opRes.code).not.toBe(0);
    expect(opRes.stderr).toContain(
      `admission webhook "operator-deletion.planwright.dev" denied the request: Operator ${ns}/app is used by`,
    );

    // No controller runs here, so the Instances have no finalizer and go at once.
    expect((await k(['delete', 'instances', '--all', '--wait=true'])).code).toBe(0);
    await waitFor('the Instance cache to see the deletions', async () => {
      const res = await k(['delete', 'operatorversion', 'app-1', '--dry-run=server']);
      return res.code === 0;
    });
    expect((await k(['delete', 'operatorversion', 'app-1'])).code).toBe(0);
    expect((await k(['delete', 'operator', 'app'])).code).toBe(0);
  });

  it('serves every path registered in manifests/, in both variants', async () => {
    const paths = new Set<string>();
    for (const dir of [MANIFESTS_DIR, join(MANIFESTS_DIR, 'cert-manager')]) {
      for (const config of await renderKustomization(dir)) {
        for (const webhook of (config['webhooks'] as
          Array<{ clientConfig: { service: { path: string } } }> | undefined) ?? []) {
          paths.add(webhook.clientConfig.service.path);
        }
      }
    }
    expect(paths.size).toBe(4);
    for (const path of paths) {
      const uid = uniqueName('uid');
      const res = await httpsRequest({
        port,
        path,
        ca: loopback.caPem,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(
          instanceReview({
            uid,
            namespace: ns,
            name: 'nothing',
            operation: 'CONNECT',
            userInfo: { username: 'probe' },
          }),
        ),
      });
      expect([path, res.status]).toEqual([path, 200]);
      expect(
        (JSON.parse(res.text) as { response: { uid: string; allowed: boolean } }).response,
      ).toEqual(expect.objectContaining({ uid, allowed: true }));
    }
  });
});
