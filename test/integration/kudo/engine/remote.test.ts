// Two control planes in one run: the shared one is the management cluster (Instances, status,
// inventory, the webhook); a dedicated bare one started here is the target named by the
// Instances' spec.kubeConfig.secretRef. Deploy into the target and clean it up; shared caches
// per {cluster, GVK} counted in the target apiserver's own metrics and released afterwards; a
// paused (SIGSTOP) target costs only its own Instances; a rotated Secret is used; prune after
// the replacement is healthy, gc: keep, apply: once; drift correct / report / off.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { request, type RequestOptions } from 'node:https';
import * as k8s from '@kubernetes/client-node';
import type { Instance } from '../../../../src/kudo/api/types.ts';
import { startLocalCluster, type LocalCluster } from '../../../../src/localcluster/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../../support/cluster.ts';
import { installKudoCrds, kudoObjects, mergePatchInstance } from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { operatorVersionObject } from '../../../support/kudo-objects.ts';

const OV = operatorVersionObject('remote-app', {
  version: '1.0',
  parameters: [
    { name: 'VALUE', default: 'v1' },
    { name: 'GEN', default: 'a' },
    { name: 'EXTRA', default: 'true' },
  ],
  templates: {
    'cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm\ndata:\n  value: {{ .Params.VALUE | quote }}\n',
    'extra.yaml':
      '{{ if eq .Params.EXTRA "true" }}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-extra\n{{ end }}',
    'kept.yaml':
      '{{ if eq .Params.EXTRA "true" }}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-kept\n  annotations:\n    planwright.dev/gc: keep\n{{ end }}',
    'once.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-once\n  annotations:\n    planwright.dev/apply: once\ndata:\n  value: {{ .Params.VALUE | quote }}\n',
    'deploy.yaml': [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: {{ .Name }}-{{ .Params.GEN }}',
      'spec:',
      '  replicas: 1',
      '  selector:',
      '    matchLabels: { app: {{ .Name }}-{{ .Params.GEN }} }',
      '  template:',
      '    metadata:',
      '      labels: { app: {{ .Name }}-{{ .Params.GEN }} }',
      '    spec:',
      '      containers: [{ name: c, image: registry.invalid/app:1 }]',
      '',
    ].join('\n'),
  },
  tasks: [
    {
      name: 'app',
      kind: 'Apply',
      spec: { resources: ['cm.yaml', 'extra.yaml', 'kept.yaml', 'once.yaml', 'deploy.yaml'] },
    },
  ],
  plans: {
    deploy: {
      strategy: 'serial',
      phases: [{ name: 'p', strategy: 'serial', steps: [{ name: 's', tasks: ['app'] }] }],
    },
  },
});

const LOCAL_OV = operatorVersionObject('local-app', {
  version: '1.0',
  templates: {
    'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm\n',
  },
  tasks: [{ name: 'app', kind: 'Apply', spec: { resources: ['cm.yaml'] } }],
  plans: {
    deploy: {
      strategy: 'serial',
      phases: [{ name: 'p', strategy: 'serial', steps: [{ name: 's', tasks: ['app'] }] }],
    },
  },
});

/** Sum of `apiserver_longrunning_requests` WATCHes of configmaps and deployments. */
async function watchCount(client: k8s.KubeConfig): Promise<Record<string, number>> {
  const res = await fetchMetrics(client);
  const out: Record<string, number> = { configmaps: 0, deployments: 0 };
  for (const line of res.split('\n')) {
    if (!line.startsWith('apiserver_longrunning_requests{')) continue;
    if (!line.includes('verb="WATCH"')) continue;
    for (const r of Object.keys(out)) {
      if (line.includes(`resource="${r}"`)) out[r] = (out[r] ?? 0) + Number(line.split(' ').pop());
    }
  }
  return out;
}

async function fetchMetrics(kc: k8s.KubeConfig): Promise<string> {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const url = new URL(`${kc.getCurrentCluster()?.server ?? ''}/metrics`);
  return new Promise<string>((resolve, reject) => {
    const req = request(url, { ...opts, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Instances in a target cluster (two control planes)', () => {
  let target: LocalCluster;
  let targetKc: k8s.KubeConfig;
  let tCore: k8s.CoreV1Api;
  let tApps: k8s.AppsV1Api;
  let tRbac: k8s.RbacAuthorizationV1Api;
  let home: k8s.KubeConfig;
  let hCore: k8s.CoreV1Api;
  let custom: k8s.CustomObjectsApi;
  let planwright: StartedPlanwright;
  let ns: string;
  let localNs: string;
  const secret = 'target-kc';
  let cluster: string;

  const get = (namespace: string, name: string): Promise<Instance | undefined> =>
    kudoObjects(custom).getInstance(namespace, name);
  const plan = async (name: string, namespace = ns) =>
    (await get(namespace, name))?.status?.planStatus?.['deploy'];
  const instance = (
    name: string,
    parameters: Record<string, string> = {},
    annotations: Record<string, string> = {},
    ref: Record<string, string> = { name: secret },
  ) => ({
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name, annotations },
    spec: { operatorVersion: { name: 'remote-app' }, parameters, kubeConfig: { secretRef: ref } },
  });
  const targetCm = (name: string) =>
    tCore.readNamespacedConfigMap({ name, namespace: ns }).catch(() => undefined);
  const deleteInstance = (name: string, namespace = ns) =>
    custom.deleteNamespacedCustomObject({
      group: 'kudo.dev',
      version: 'v1beta1',
      namespace,
      plural: 'instances',
      name,
    });
  /** The test plays the Deployment controller: the Deployment reports one ready replica. */
  const markReady = async (name: string) => {
    const d = await tApps.readNamespacedDeployment({ name, namespace: ns });
    await tApps.replaceNamespacedDeploymentStatus({
      name,
      namespace: ns,
      body: {
        ...d,
        status: {
          observedGeneration: d.metadata?.generation ?? 1,
          replicas: 1,
          updatedReplicas: 1,
          readyReplicas: 1,
          availableReplicas: 1,
        },
      },
    });
  };
  /** Waits for a new run of `name` to COMPLETE, playing the Deployment controller meanwhile. */
  const completes = (name: string, deployment: string, oldUid: string | undefined) =>
    waitFor(
      `${name} COMPLETE (new run)`,
      async () => {
        const d = await tApps
          .readNamespacedDeployment({ name: deployment, namespace: ns })
          .catch(() => undefined);
        if (d && d.status?.observedGeneration !== d.metadata?.generation)
          await markReady(deployment);
        const ps = await plan(name);
        return ps?.uid !== oldUid && ps?.status === 'COMPLETE';
      },
      { timeoutMs: 90_000 },
    );
  const putSecret = async (kubeconfigPath: string, extra: Record<string, string> = {}) => {
    const value = Buffer.from(await readFile(kubeconfigPath)).toString('base64');
    const body = { metadata: { name: secret, namespace: ns }, data: { value, ...extra } };
    await hCore
      .replaceNamespacedSecret({ name: secret, namespace: ns, body })
      .catch(() => hCore.createNamespacedSecret({ namespace: ns, body }));
  };
  const bindAdmin = (group: string) =>
    tRbac.createClusterRoleBinding({
      body: {
        metadata: { name: `planwright-${group}` },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'cluster-admin',
        },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: group }],
      },
    });

  beforeAll(async () => {
    await installKudoCrds();
    target = await startLocalCluster({ binaries: testCluster().binaries });
    targetKc = new k8s.KubeConfig();
    targetKc.loadFromFile(target.kubeconfigPath);
    tCore = targetKc.makeApiClient(k8s.CoreV1Api);
    tApps = targetKc.makeApiClient(k8s.AppsV1Api);
    tRbac = targetKc.makeApiClient(k8s.RbacAuthorizationV1Api);
    home = kubeConfig();
    hCore = home.makeApiClient(k8s.CoreV1Api);
    custom = home.makeApiClient(k8s.CustomObjectsApi);
    ns = await createTestNamespace('remote');
    localNs = await createTestNamespace('remote-home');
    cluster = `secret:${ns}/${secret}/value`;
    // The same namespace name in the target: namespaced objects default to the Instance's.
    await tCore.createNamespace({ body: { metadata: { name: ns } } });
    await bindAdmin('deployers-1');
    const user1 = await target.createUser('deployer-1', ['deployers-1']);
    await putSecret(user1.kubeconfigPath);
    const kudo = kudoObjects(custom);
    await kudo.create(ns, 'operatorversions', OV);
    await kudo.create(localNs, 'operatorversions', LOCAL_OV);
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns, localNs],
      // The target control plane listens on loopback, which kubeconfigs may name only where
      // the administrator allows it (docs/security.md, "Target servers").
      args: ['--allow-target-server', '127.0.0.1'],
    });
  });

  afterAll(async () => {
    try {
      process.kill(target.pids.kubeApiServer, 'SIGCONT');
    } catch {
      // already running or gone
    }
    await planwright?.stop();
    await target?.stop();
  });

  it('deploys into the target only, shares caches between Instances, cleans up and releases them', async () => {
    const before = await watchCount(targetKc);
    await kudoObjects(custom).create(ns, 'instances', instance('one'));
    await waitFor('Deployment one-a in the target', () =>
      tApps.readNamespacedDeployment({ name: 'one-a', namespace: ns }),
    );
    await markReady('one-a');
    await waitFor('one COMPLETE', async () => (await plan('one'))?.status === 'COMPLETE');
    expect((await targetCm('one-cm'))?.data).toEqual({ value: 'v1' });
    // Not at home, and without an owner reference to a home object.
    await expect(
      hCore.readNamespacedConfigMap({ name: 'one-cm', namespace: ns }),
    ).rejects.toThrow();
    expect((await targetCm('one-cm'))?.metadata?.ownerReferences).toBeUndefined();
    // Inventory entries carry the cluster and the task; with drift off no content digest
    // (only drift compares it: the drift case below checks it is there with drift on).
    const inventory = (await get(ns, 'one'))?.status?.inventory ?? [];
    expect(inventory).toHaveLength(5);
    for (const e of inventory) {
      expect(e).toMatchObject({ cluster, task: 'app' });
      expect(e['contentDigest']).toBeUndefined();
    }
    expect(inventory.find((e) => e['name'] === 'one-kept')?.['policy']).toBe('keep');
    expect(inventory.find((e) => e['name'] === 'one-once')?.['policy']).toBe('once');
    // Policy annotations are stripped before applying.
    expect(
      (await targetCm('one-once'))?.metadata?.annotations?.['planwright.dev/apply'],
    ).toBeUndefined();

    const withOne = await waitFor('watches of the target', async () => {
      const n = await watchCount(targetKc);
      return n['configmaps']! > before['configmaps']! && n['deployments']! > before['deployments']!
        ? n
        : undefined;
    });
    await kudoObjects(custom).create(ns, 'instances', instance('two'));
    await waitFor('Deployment two-a', () =>
      tApps.readNamespacedDeployment({ name: 'two-a', namespace: ns }),
    );
    await markReady('two-a');
    await waitFor('two COMPLETE', async () => (await plan('two'))?.status === 'COMPLETE');
    // The second Instance shares the caches: no further watch on the target.
    expect(await watchCount(targetKc)).toEqual(withOne);
    expect(withOne['configmaps']).toBe(before['configmaps']! + 1);

    await deleteInstance('one');
    await waitFor('one gone', async () => (await get(ns, 'one')) === undefined);
    expect(await targetCm('one-cm')).toBeUndefined();
    expect(await targetCm('one-extra')).toBeUndefined();
    // gc: keep survives the deletion of its Instance.
    expect(await targetCm('one-kept')).toBeDefined();
    await expect(
      tApps.readNamespacedDeployment({ name: 'one-a', namespace: ns }),
    ).rejects.toThrow();
    // Still used by "two".
    expect(await watchCount(targetKc)).toEqual(withOne);
    await deleteInstance('two');
    await waitFor('two gone', async () => (await get(ns, 'two')) === undefined);
    expect(await targetCm('two-cm')).toBeUndefined();
    // Released after the grace period: back to the watches before.
    await waitFor('target caches released', async () => {
      const n = await watchCount(targetKc);
      return n['configmaps'] === before['configmaps'] && n['deployments'] === before['deployments'];
    });
  });

  it('prunes what a task stops rendering once the replacement is healthy; keep and once', async () => {
    await kudoObjects(custom).create(ns, 'instances', instance('p'));
    await waitFor('p-a', () => tApps.readNamespacedDeployment({ name: 'p-a', namespace: ns }));
    await markReady('p-a');
    await waitFor('p COMPLETE', async () => (await plan('p'))?.status === 'COMPLETE');
    const uid = (await plan('p'))?.uid;

    await mergePatchInstance(custom, ns, 'p', {
      spec: { parameters: { GEN: 'b', EXTRA: 'false', VALUE: 'v2' } },
    });
    await waitFor('p-b', () => tApps.readNamespacedDeployment({ name: 'p-b', namespace: ns }));
    await waitFor('the new run waits for p-b', async () => {
      const ps = await plan('p');
      return ps?.uid !== uid && ps?.status === 'IN_PROGRESS' && JSON.stringify(ps).includes('p-b');
    });
    // Not healthy yet: nothing is pruned.
    expect(await tApps.readNamespacedDeployment({ name: 'p-a', namespace: ns })).toBeDefined();
    expect(await targetCm('p-extra')).toBeDefined();
    await markReady('p-b');
    await waitFor('p COMPLETE again', async () => {
      const ps = await plan('p');
      return ps?.uid !== uid && ps?.status === 'COMPLETE';
    });
    await expect(tApps.readNamespacedDeployment({ name: 'p-a', namespace: ns })).rejects.toThrow();
    expect(await targetCm('p-extra')).toBeUndefined();
    // keep: still there, and out of the inventory.
    expect(await targetCm('p-kept')).toBeDefined();
    const names = ((await get(ns, 'p'))?.status?.inventory ?? []).map((e) => e['name']);
    expect(names.sort()).toEqual(['p-b', 'p-cm', 'p-once']);
    // once: created with v1, untouched by the changed template; the rest follows it.
    expect((await targetCm('p-once'))?.data).toEqual({ value: 'v1' });
    expect((await targetCm('p-cm'))?.data).toEqual({ value: 'v2' });
  });

  it('drift: correct restores from the watch, report only reports, default leaves the edit', async () => {
    for (const [name, mode] of [
      ['dc', 'correct'],
      ['dr', 'report'],
      ['d0', undefined],
    ] as const) {
      await kudoObjects(custom).create(
        ns,
        'instances',
        instance(name, { EXTRA: 'false' }, mode ? { 'planwright.dev/drift': mode } : {}),
      );
      await waitFor(`${name}-a`, () =>
        tApps.readNamespacedDeployment({ name: `${name}-a`, namespace: ns }),
      );
      await markReady(`${name}-a`);
      await waitFor(`${name} COMPLETE`, async () => (await plan(name))?.status === 'COMPLETE');
      // What a drift baseline is compared with: recorded only with drift on.
      for (const e of (await get(ns, name))?.status?.inventory ?? [])
        if (mode) expect(e['contentDigest']).toMatch(/^[0-9a-f]{16}$/);
        else expect(e['contentDigest']).toBeUndefined();
    }
    const edit = (name: string) =>
      tCore.patchNamespacedConfigMap(
        { name, namespace: ns, body: { data: { value: 'edited' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    await edit('d0-cm');
    await edit('dr-cm');
    await edit('dc-cm');
    await waitFor(
      'dc-cm restored',
      async () => (await targetCm('dc-cm'))?.data?.['value'] === 'v1',
      {
        timeoutMs: 15_000,
      },
    );
    const events = async (reason: string) =>
      (await hCore.listNamespacedEvent({ namespace: ns })).items.filter((e) => e.reason === reason);
    await waitFor('DriftCorrected event', async () =>
      (await events('DriftCorrected')).some(
        (e) => e.involvedObject.name === 'dc' && e.message?.includes('ConfigMap ' + ns + '/dc-cm'),
      ),
    );
    const reported = await waitFor('DriftDetected event', async () =>
      (await events('DriftDetected')).find((e) => e.involvedObject.name === 'dr'),
    );
    expect(reported.message).toContain(`ConfigMap ${ns}/dr-cm in cluster ${cluster}`);
    expect(reported.message).toContain('data.value');
    const condition = await waitFor('Drifted condition', async () =>
      (await get(ns, 'dr'))?.status?.conditions?.find(
        (c) => c.type === 'Drifted' && c.status === 'True',
      ),
    );
    expect(condition.message).toContain('data.value');
    // report and default keep the edit (the correct one was restored meanwhile).
    expect((await targetCm('dr-cm'))?.data?.['value']).toBe('edited');
    const d0 = await targetCm('d0-cm');
    expect(d0?.data?.['value']).toBe('edited');
    expect((await events('DriftDetected')).some((e) => e.involvedObject.name === 'd0')).toBe(false);
    const metrics = await planwright.metrics();
    expect(metrics).toMatch(/planwright_drift_detected_total\{[^}]*mode="report"[^}]*\} 1/);
  });

  it('a paused target costs only its own Instances; they finish when it is back', async () => {
    const timeLocal = async (name: string): Promise<number> => {
      const start = Date.now();
      await kudoObjects(custom).create(localNs, 'instances', {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name },
        spec: { operatorVersion: { name: 'local-app' } },
      });
      await waitFor(
        `${name} COMPLETE`,
        async () => (await plan(name, localNs))?.status === 'COMPLETE',
      );
      return Date.now() - start;
    };
    const baseline: number[] = [];
    for (let i = 0; i < 3; i++) baseline.push(await timeLocal(`base-${i}`));

    await kudoObjects(custom).create(ns, 'instances', instance('far', { EXTRA: 'false' }));
    await waitFor('far-a', () => tApps.readNamespacedDeployment({ name: 'far-a', namespace: ns }));
    await markReady('far-a');
    await waitFor('far COMPLETE', async () => (await plan('far'))?.status === 'COMPLETE');
    const uid = (await plan('far'))?.uid;

    process.kill(target.pids.kubeApiServer, 'SIGSTOP');
    try {
      await mergePatchInstance(custom, ns, 'far', { spec: { parameters: { VALUE: 'v2' } } });
      const during: number[] = [];
      for (let i = 0; i < 3; i++) during.push(await timeLocal(`during-${i}`));
      const step = await waitFor(
        'far ERROR naming the cluster',
        async () => {
          const ps = await plan('far');
          const s = ps?.phases?.[0]?.steps?.[0];
          return ps?.uid !== uid && s?.status === 'ERROR' ? s : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(step.message).toContain(`cluster ${cluster} (${target.server}) is unreachable`);
      expect(step.message).toMatch(/next retry at \d{4}-\d\d-\d\dT/);
      process.stdout.write(
        `remote isolation: local Instance to COMPLETE, ms: before ${baseline.join(', ')}; target paused ${during.join(', ')}\n`,
      );
    } finally {
      process.kill(target.pids.kubeApiServer, 'SIGCONT');
    }
    await completes('far', 'far-a', uid);
    expect((await targetCm('far-cm'))?.data).toEqual({ value: 'v2' });
  });

  it('a rotated Secret is used by the next reconcile', async () => {
    await bindAdmin('deployers-2');
    const user2 = await target.createUser('deployer-2', ['deployers-2']);
    await putSecret(user2.kubeconfigPath);
    // The old user loses its rights: only the new credentials can apply now.
    await tRbac.deleteClusterRoleBinding({ name: 'planwright-deployers-1' });
    const uid = (await plan('far'))?.uid;
    await mergePatchInstance(custom, ns, 'far', { spec: { parameters: { VALUE: 'v3' } } });
    await completes('far', 'far-a', uid);
    expect((await targetCm('far-cm'))?.data).toEqual({ value: 'v3' });
  });

  it('refuses a changed target, a missing Secret and an exec plugin with clear messages', async () => {
    await expect(
      mergePatchInstance(custom, ns, 'far', {
        spec: { kubeConfig: { secretRef: { name: 'elsewhere' } } },
      }),
    ).rejects.toThrow(/spec.kubeConfig/);
    await kudoObjects(custom).create(ns, 'instances', instance('lost', {}, {}, { name: 'nope' }));
    const lost = await waitFor('lost ERROR', async () => {
      const s = (await plan('lost'))?.phases?.[0]?.steps?.[0];
      return s?.status === 'ERROR' ? s : undefined;
    });
    expect(lost.message).toContain(
      `Secret ${ns}/nope named by spec.kubeConfig.secretRef does not exist`,
    );
    await hCore.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: 'exec-kc' },
        stringData: {
          value: [
            'apiVersion: v1',
            'kind: Config',
            'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
            'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh}}}]',
            'contexts: [{name: x, context: {cluster: c, user: u}}]',
            'current-context: x',
          ].join('\n'),
        },
      },
    });
    await kudoObjects(custom).create(
      ns,
      'instances',
      instance('exec', {}, {}, { name: 'exec-kc' }),
    );
    const refused = await waitFor('exec ERROR', async () => {
      const s = (await plan('exec'))?.phases?.[0]?.steps?.[0];
      return s?.status === 'ERROR' ? s : undefined;
    });
    expect(refused.message).toContain('user "u": exec (runs a program in the manager)');
    // Nothing was applied for them: their deletion finishes at once.
    await deleteInstance('lost');
    await deleteInstance('exec');
    await waitFor('lost gone', async () => (await get(ns, 'lost')) === undefined);
    await waitFor('exec gone', async () => (await get(ns, 'exec')) === undefined);
  });

  it('the Secret gone for good: the deletion waits with the way out, which lets go', async () => {
    await hCore.deleteNamespacedSecret({ name: secret, namespace: ns });
    await deleteInstance('far');
    const blocked = await waitFor('far CleanupBlocked', async () =>
      (await get(ns, 'far'))?.status?.conditions?.find((c) => c.reason === 'CleanupBlocked'),
    );
    expect(blocked.message).toContain(
      `Secret ${ns}/${secret} named by spec.kubeConfig.secretRef does not exist`,
    );
    expect(blocked.message).toContain(
      `kubectl annotate instance far -n ${ns} planwright.dev/skip-target-cleanup=true`,
    );
    expect(await get(ns, 'far')).toBeDefined();
    await custom.patchNamespacedCustomObject(
      {
        group: 'kudo.dev',
        version: 'v1beta1',
        namespace: ns,
        plural: 'instances',
        name: 'far',
        body: { metadata: { annotations: { 'planwright.dev/skip-target-cleanup': 'true' } } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await waitFor('far gone', async () => (await get(ns, 'far')) === undefined);
    // Its objects stay in the target: nobody could reach it to delete them.
    expect(await targetCm('far-cm')).toBeDefined();
  });
});
