// `init` on a dedicated control plane of its own: it registers webhooks for every namespace and
// cluster-wide RBAC, which must not touch the shared cluster of the other tests.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import * as k8s from '@kubernetes/client-node';
import { KubeClient } from '../../../src/kube/index.ts';
import { startLocalCluster, type LocalCluster } from '../../../src/localcluster/index.ts';
import { testCluster } from '../../support/cluster.ts';
import { waitFor } from '../../support/wait.ts';
import { ensureBuiltCli, PLANWRIGHT, runBuilt, type CliResult } from './built-cli.ts';

interface Manifest {
  kind: string;
  metadata: { name?: string; namespace?: string };
  spec?: { template?: { spec?: { containers?: Array<{ image?: string }> } } };
  webhooks?: Array<{ clientConfig?: { service?: Record<string, unknown> } }>;
}

describe('planwright init', () => {
  let cluster: LocalCluster;
  let client: KubeClient;
  const planwright = (args: string[]): Promise<CliResult> =>
    runBuilt(PLANWRIGHT, args, { env: { KUBECONFIG: cluster.kubeconfigPath } });

  beforeAll(async () => {
    [cluster] = await Promise.all([
      startLocalCluster({ binaries: testCluster().binaries }),
      ensureBuiltCli(),
    ]);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    client = new KubeClient(kc);
  }, 300_000);

  afterAll(async () => {
    client?.close();
    await cluster?.stop();
  });

  it('other commands first check that the CRDs are installed', async () => {
    const res = await planwright(['get', 'instances']);
    expect(res.code).toBe(255);
    expect(res.stderr).toBe(
      'Error: CRDs invalid: CRD operators.kudo.dev is not installed, CRD operatorversions.kudo.dev is not installed, ' +
        'CRD instances.kudo.dev is not installed. Install Planwright with `kubectl kudo init` ' +
        '(or skip this check with --validate-install=false)\n',
    );
    const skipped = await planwright(['get', 'instances', '--validate-install=false']);
    expect(skipped.code).toBe(255);
    expect(skipped.stderr).toContain('failed to retrieve instances');
  });

  it('--dry-run -o yaml prints the manifests, rewritten for --namespace and --image, without a cluster', async () => {
    const res = await runBuilt(
      PLANWRIGHT,
      ['init', '--dry-run', '-o', 'yaml', '--namespace', 'ops', '--image', 'registry.example/pw:1'],
      { env: { KUBECONFIG: '/nonexistent' } },
    );
    expect(res.code).toBe(0);
    const objects = parseAllDocuments(res.stdout).map((d) => d.toJS() as Manifest);
    const kinds = objects.map((o) => o.kind);
    expect(kinds.slice(0, 4)).toEqual([
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'Namespace',
    ]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'ServiceAccount',
        'ClusterRole',
        'Deployment',
        'Service',
        'MutatingWebhookConfiguration',
      ]),
    );
    // Both webhook registrations, last: they call a Deployment that must exist first.
    expect(kinds.slice(-2)).toEqual([
      'MutatingWebhookConfiguration',
      'ValidatingWebhookConfiguration',
    ]);
    expect(objects.find((o) => o.kind === 'Namespace')?.metadata).toMatchObject({
      name: 'ops',
    });
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect(deployment?.metadata.namespace).toBe('ops');
    expect(deployment?.spec?.template?.spec?.containers?.[0]?.image).toBe('registry.example/pw:1');
    const webhook = objects.find((o) => o.kind === 'MutatingWebhookConfiguration');
    expect(webhook?.webhooks?.[0]?.clientConfig?.service).toMatchObject({
      name: 'planwright-webhook',
      namespace: 'ops',
    });
    expect(res.stdout).not.toContain('planwright-system');

    const certManager = await runBuilt(
      PLANWRIGHT,
      ['init', '--dry-run', '-o', 'yaml', '--cert-manager'],
      { env: { KUBECONFIG: '/nonexistent' } },
    );
    const cmKinds = parseAllDocuments(certManager.stdout).map(
      (d) => (d.toJS() as { kind: string }).kind,
    );
    expect(cmKinds).toEqual(
      expect.arrayContaining(['Issuer', 'Certificate', 'ValidatingWebhookConfiguration']),
    );
    // The variant leaves the self-managed certificate's rights out.
    expect(certManager.stdout).not.toContain('planwright-webhook-tls');
    expect(certManager.stdout).toContain('--cert-dir');
  });

  it('installs, refuses a second install without --upgrade, upgrades, and verifies', async () => {
    const res = await planwright(['init', '--namespace', 'pw-sys']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(
      '✅ applied customresourcedefinition.apiextensions.k8s.io/instances.kudo.dev\n',
    );
    expect(res.stdout).toContain('✅ applied deployment.apps/planwright -n pw-sys\n');
    expect(res.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Planwright installed in namespace pw-sys',
    );
    const deployment = await client.request<{ spec: { replicas: number } }>({
      path: '/apis/apps/v1/namespaces/pw-sys/deployments/planwright',
    });
    expect(deployment.spec.replicas).toBe(2);
    const binding = await client.request<{ subjects: Array<{ namespace: string }> }>({
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/planwright',
    });
    expect(binding.subjects[0]?.namespace).toBe('pw-sys');
    // The CRDs work now.
    expect((await planwright(['get', 'instances'])).code).toBe(0);

    const again = await planwright(['init', '--namespace', 'pw-sys']);
    expect(again.code).toBe(255);
    expect(again.stderr).toBe(
      'Error: CRDs operators.kudo.dev, operatorversions.kudo.dev, instances.kudo.dev already installed. Did you mean to use --upgrade?\n',
    );
    expect((await planwright(['init', '--namespace', 'pw-sys', '--upgrade'])).code).toBe(0);

    // No node runs the pods here: the Deployment has no available replica.
    const verify = await planwright(['init', '--namespace', 'pw-sys', '--verify']);
    expect(verify.code).toBe(255);
    expect(verify.stderr).toBe(
      'Error: Planwright installation invalid: deployment.apps/planwright -n pw-sys has no available replica\n',
    );
  });

  it('--upgrade over a Deployment before shards stops its replicas before the sharded ones start', async () => {
    const path = '/apis/apps/v1/namespaces/pw-sys/deployments/planwright';
    type Deployment = {
      spec: {
        replicas: number;
        template: { spec: { containers: Array<{ args: string[] }> } };
      };
    };
    const args = (d: Deployment): string[] => d.spec.template.spec.containers[0]?.args ?? [];
    // The Deployment an earlier init applied (no --shards), and one of its pods: no controller
    // runs here, so the test deletes the pod once the Deployment is scaled to 0, as the
    // Deployment controller would.
    await client.request({
      method: 'PATCH',
      path,
      body: [
        {
          op: 'replace',
          path: '/spec/template/spec/containers/0/args',
          value: ['--webhook-port', '9443'],
        },
      ],
      contentType: 'application/json-patch+json',
    });
    const podName = 'planwright-older';
    await client.request({
      method: 'POST',
      path: '/api/v1/namespaces/pw-sys/pods',
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: podName, labels: { 'app.kubernetes.io/name': 'planwright' } },
        spec: { containers: [{ name: 'planwright', image: 'planwright:older' }] },
      },
    });
    // What happened, in order: the Deployment's states and the pod's deletion.
    const seen: string[] = [];
    const stop = new AbortController();
    let watched!: () => void;
    const first = new Promise<void>((resolve) => (watched = resolve));
    const watching = client
      .watch({
        path: '/apis/apps/v1/namespaces/pw-sys/deployments',
        query: { fieldSelector: 'metadata.name=planwright' },
        signal: stop.signal,
        inactivityMs: 60_000,
        onEvent: (e) => {
          const d = (e as { object: Deployment }).object;
          seen.push(`${d.spec.replicas} ${args(d).includes('--shards') ? 'sharded' : 'older'}`);
          watched();
          if (d.spec.replicas === 0 && !args(d).includes('--shards')) {
            void client
              .request({ method: 'DELETE', path: `/api/v1/namespaces/pw-sys/pods/${podName}` })
              .then(() => seen.push('pod deleted'));
          }
        },
      })
      .catch(() => undefined);
    await first;
    const res = await planwright(['init', '--namespace', 'pw-sys', '--upgrade']);
    stop.abort();
    await watching;
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      'Deployment pw-sys/planwright runs a Planwright before shards (one leader reconciles every Instance): stopping its replicas before the new ones start',
    );
    expect(seen.indexOf('pod deleted')).toBeGreaterThan(seen.indexOf('0 older'));
    expect(seen.indexOf('0 older')).toBeGreaterThan(-1);
    expect(seen.indexOf('2 sharded')).toBeGreaterThan(seen.indexOf('pod deleted'));
    const upgraded = await client.request<Deployment>({ path });
    expect([upgraded.spec.replicas, args(upgraded)]).toEqual([
      2,
      ['--webhook-port', '9443', '--shards', '12'],
    ]);
    // Already sharded: nothing is stopped again.
    const again = await planwright(['init', '--namespace', 'pw-sys', '--upgrade']);
    expect([again.code, again.stderr]).toEqual([0, '']);
  });

  it('--wait fails with a clear message while the webhook does not answer, and returns once it does', async () => {
    // The same upgrade of pw-sys, waiting up to `seconds` for the webhook.
    const initWaiting = (seconds: number): string[] => [
      'init',
      '--namespace',
      'pw-sys',
      '--upgrade',
      '--wait',
      '--wait-time',
      String(seconds),
    ];
    const timeout = await planwright(initWaiting(2));
    expect(timeout.code).toBe(255);
    expect(timeout.stderr).toMatch(
      /^Error: timeout waiting for the Planwright webhook to answer after 2 s \(last: .*failed calling webhook/,
    );
    expect(timeout.stderr).toContain('nodes simulated by kwok run none');

    // `planwright start --install` (the built executable) registers the webhook at its own
    // loopback address; started while init waits, init must notice it answering.
    const spawnBuilt = (args: string[]) => {
      const child = spawn(process.execPath, [PLANWRIGHT, ...args], {
        env: { ...process.env, KUBECONFIG: cluster.kubeconfigPath },
      });
      const out = { stdout: '', stderr: '' };
      child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
      return { child, out, exited };
    };
    const init = spawnBuilt(initWaiting(120));
    let manager: ReturnType<typeof spawnBuilt> | undefined;
    try {
      // The manager starts once init has applied both webhook configurations: started earlier,
      // its registration could be overwritten by init's (the Service's, which nothing serves).
      await waitFor(
        'init to apply the webhook registrations',
        () =>
          init.out.stdout.includes('mutatingwebhookconfiguration') &&
          init.out.stdout.includes('validatingwebhookconfiguration'),
        { timeoutMs: 60_000 },
      );
      manager = spawnBuilt(['start', '--install', '--webhook-port', '0', '--no-leader-election']);
      // On failure the report shows what both processes said.
      const exit = await init.exited;
      expect({ exit, init: init.out.stderr, manager: manager.out.stderr }).toMatchObject({
        exit: 0,
      });
      expect(init.out.stdout).toContain('Planwright webhook answers\n');
      expect(manager.out.stderr).toContain(
        'Registered MutatingWebhookConfiguration planwright-instances',
      );
    } finally {
      init.child.kill();
      manager?.child.kill('SIGTERM');
    }
    expect(await manager?.exited).toBe(0);
  });
});
