// Pipe tasks on a workloads cluster. The simulated nodes run no containers, so what a pipe
// pod's init container would have written is supplied through kwok's exec simulation: the
// pod's files lie in a folder on this machine that kwok runs `stat` and `tar` in (test/support/
// simulated-exec.ts). Everything Planwright does is real: the pod it builds and creates, the
// wait for kwok's Running/Ready status, pods/exec through the API server, the tar stream,
// the size limit, the ConfigMaps/Secrets and the Deployment that mounts them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Condition, Instance, PlanStatus } from '../../../../src/kudo/api/types.ts';
import { loadPackage } from '../../../../src/kudo/package/index.ts';
import {
  combineDigests,
  objectDigest,
} from '../../../../src/kudo/tasks/dependencies-hash/index.ts';
import type { ApplyObject } from '../../../../src/kube/apply.ts';
import { createTestNamespace, kubeConfig } from '../../../support/cluster.ts';
import { installKudoCrds, KUDO_PACKAGES, kudoObjects } from '../../../support/kudo.ts';
import { simulatePodFiles } from '../../../support/simulated-exec.ts';
import { waitFor } from '../../../support/wait.ts';
import { startPlanwright, type RunningPlanwright } from '../../../support/planwright.ts';

const COW = `<html><body><pre>
 _______________________________________
< Good things come when you least expect >
 ---------------------------------------
        \\   ^__^
         \\  (oo)\\_______
            (__)\\       )\\/\\
                ||----w |
                ||     ||
</pre></body></html>
`;
const STEP_TIMEOUT_MS = 25_000;
const WAITER_IMAGE = 'registry.example/mirror/busybox:1.36';

describe('Pipe tasks on a workloads cluster', () => {
  const kc = kubeConfig();
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const { create, getInstance } = kudoObjects(custom);
  let planwright: RunningPlanwright;
  let ns = '';
  let failures = '';

  const terminal = (namespace: string, name: string): Promise<PlanStatus> =>
    waitFor(
      `${namespace}/${name} deploy terminal`,
      async () => {
        const ps = (await getInstance(namespace, name))?.status?.planStatus?.['deploy'];
        return ps?.status === 'COMPLETE' || ps?.status === 'FATAL_ERROR' ? ps : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('pipe');
    failures = await createTestNamespace('pipe-fail');
    planwright = await startPlanwright({
      kubeConfig: kc,
      namespaces: [ns, failures],
      stepTimeoutMs: STEP_TIMEOUT_MS,
      pipeWaiterImage: WAITER_IMAGE,
    });
  }, 180_000);

  afterAll(async () => {
    await planwright?.stop();
  });

  it('cowsay reaches COMPLETE, its generated ConfigMap mounted by its running Deployment', async () => {
    const pod = 'cowsayinstance.deploy.main.genfiles.genwww.pipepod';
    const artifact = 'cowsayinstance.deploy.main.genfiles.genwww.indexhtml';
    // What cowsay's init container (wget from cowsay.morecode.org) would have written.
    await simulatePodFiles(ns, pod, { '/tmp/index.html': COW });
    const pkg = await loadPackage(join(KUDO_PACKAGES, 'cowsay'), { namespace: ns });
    await create(ns, 'operators', pkg.operator);
    await create(ns, 'operatorversions', pkg.operatorVersion);
    await create(ns, 'instances', pkg.instance);
    const ps = await terminal(ns, 'cowsay-instance');
    expect(`${ps.status} ${ps.message ?? ''}`).toBe('COMPLETE ');

    const cm = await core.readNamespacedConfigMap({ namespace: ns, name: artifact });
    expect(cm.binaryData).toEqual({ 'index.html': Buffer.from(COW).toString('base64') });
    expect(cm.data ?? {}).toEqual({});
    expect(cm.metadata?.labels).toMatchObject({
      heritage: 'kudo',
      'kudo.dev/instance': 'cowsay-instance',
      'kudo.dev/operator': 'cowsay',
    });
    expect(cm.metadata?.annotations).toMatchObject({
      'kudo.dev/plan': 'deploy',
      'kudo.dev/phase': 'main',
      'kudo.dev/step': 'genfiles',
    });
    expect(cm.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Instance',
      name: 'cowsay-instance',
      controller: true,
    });

    // The Deployment mounts it (through .Pipes.indexHtml), runs, and hashes it.
    const d = await apps.readNamespacedDeployment({
      namespace: ns,
      name: 'cowsay-instance-deployment',
    });
    expect(d.spec?.template.spec?.volumes).toEqual([
      expect.objectContaining({
        name: 'www',
        configMap: expect.objectContaining({ name: artifact }),
      }),
    ]);
    expect(d.status?.availableReplicas).toBe(1);
    expect(d.spec?.template.metadata?.annotations?.['kudo.dev/dependencies-hash']).toBe(
      combineDigests([objectDigest(cm as ApplyObject)]),
    );
    const pods = await core.listNamespacedPod({
      namespace: ns,
      labelSelector: 'app=nginx,kudo.dev/instance=cowsay-instance',
    });
    expect(pods.items.map((p) => p.status?.phase)).toEqual(['Running']);
    expect(pods.items[0]?.spec?.volumes).toContainEqual(
      expect.objectContaining({ configMap: expect.objectContaining({ name: artifact }) }),
    );

    // The artifact is in the inventory (with its digest); the pipe pod is gone.
    const instance = (await getInstance(ns, 'cowsay-instance')) as Instance;
    expect(instance.status?.inventory).toContainEqual(
      expect.objectContaining({
        kind: 'ConfigMap',
        name: artifact,
        digest: objectDigest(cm as ApplyObject),
      }),
    );
    await waitFor('the pipe pod deleted', async () => {
      const left = await core.listNamespacedPod({
        namespace: ns,
        fieldSelector: `metadata.name=${pod}`,
      });
      return left.items.length === 0;
    });
    const ready = await waitFor('Ready=True', async () => {
      const c = (await getInstance(ns, 'cowsay-instance'))?.status?.conditions?.find(
        (x: Condition) => x.type === 'Ready',
      );
      return c?.status === 'True' ? c : undefined;
    });
    expect(ready.reason).toBe('ResourcesReady');
  }, 180_000);

  /** An OperatorVersion with one Pipe task writing `file` (a file or an env file) into /tmp/out. */
  async function pipeOperator(
    name: string,
    pipe: Record<string, string>,
    podSpec: Record<string, unknown> = {},
  ): Promise<void> {
    const spec = {
      volumes: [{ name: 'out', emptyDir: {} }],
      initContainers: [
        {
          name: 'init',
          image: 'busybox',
          command: ['/bin/sh', '-c', 'echo generating'],
          volumeMounts: [{ name: 'out', mountPath: '/tmp/out' }],
        },
      ],
      terminationGracePeriodSeconds: 0,
      ...podSpec,
    };
    await create(failures, 'operatorversions', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'OperatorVersion',
      metadata: { name: `${name}-0.1.0` },
      spec: {
        operator: { name },
        version: '0.1.0',
        templates: { 'pod.yaml': JSON.stringify({ apiVersion: 'v1', kind: 'Pod', spec }) },
        tasks: [
          { name: 'gen', kind: 'Pipe', spec: { pod: 'pod.yaml', pipe: [{ ...pipe, key: 'out' }] } },
        ],
        plans: {
          deploy: {
            strategy: 'serial',
            phases: [
              { name: 'main', strategy: 'serial', steps: [{ name: 'files', tasks: ['gen'] }] },
            ],
          },
        },
      },
    });
    await create(failures, 'instances', {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name, labels: { 'kudo.dev/operator': name } },
      spec: { operatorVersion: { name: `${name}-0.1.0` } },
    });
  }

  const podOf = (name: string): string => `${name}.deploy.main.files.gen.pipepod`;

  interface FailureCase {
    readonly name: string;
    readonly pipe: Record<string, string>;
    readonly files: Record<string, string | Buffer | { symlink: string }>;
    readonly message: string;
  }
  it.each<FailureCase>([
    {
      name: 'oversized',
      pipe: { file: '/tmp/out/big.bin', kind: 'ConfigMap' },
      files: { '/tmp/out/big.bin': Buffer.alloc(1024 * 1024 + 1, 7) },
      message:
        'pipe file /tmp/out/big.bin size 1048577 exceeds maximum file size of 1048576 bytes (1 MiB) in pod {ns}/oversized.deploy.main.files.gen.pipepod (container waiter)',
    },
    {
      name: 'missing',
      pipe: { file: '/tmp/out/missing.txt', kind: 'Secret' },
      files: { '/tmp/out/other.txt': 'not this one' },
      message:
        'pipe file /tmp/out/missing.txt could not be read in pod {ns}/missing.deploy.main.files.gen.pipepod (container waiter): `stat -c %s /tmp/out/missing.txt` exited with code 1',
    },
    {
      name: 'badenv',
      pipe: { envFile: '/tmp/out/vars.env', kind: 'ConfigMap' },
      files: { '/tmp/out/vars.env': 'GOOD=1\nthis line is not an assignment\n' },
      message:
        'env file /tmp/out/vars.env: line 2 has no "=" (expected KEY=VALUE) (copied from pod {ns}/badenv.deploy.main.files.gen.pipepod)',
    },
    {
      name: 'linked',
      pipe: { file: '/tmp/out/cert.pem', kind: 'Secret' },
      files: { '/tmp/out/cert.pem': { symlink: '/etc/hostname' } },
      message: 'pipe file /tmp/out/cert.pem from pod {ns}/linked.deploy.main.files.gen.pipepod',
    },
  ])(
    '$name: the step fails, naming file and pod; the pod stays for inspection',
    async ({ name, pipe, files, message }) => {
      await simulatePodFiles(failures, podOf(name), files);
      await pipeOperator(name, pipe);
      const ps = await terminal(failures, name);
      expect(ps.status).toBe('FATAL_ERROR');
      const step = ps.phases?.[0]?.steps?.[0];
      expect(step?.status).toBe('FATAL_ERROR');
      expect(step?.message).toContain(`task gen: ${message.replaceAll('{ns}', failures)}`);
      // No artifact; the pod is kept (and runs the configured waiter image).
      const artifacts = await core.listNamespacedConfigMap({
        namespace: failures,
        fieldSelector: `metadata.name=${name}.deploy.main.files.gen.out`,
      });
      expect(artifacts.items).toEqual([]);
      const pod = await core.readNamespacedPod({ namespace: failures, name: podOf(name) });
      expect(pod.spec?.containers.map((c) => [c.name, c.image])).toEqual([
        ['waiter', WAITER_IMAGE],
      ]);
      expect(pod.metadata?.annotations?.['kudo.dev/pipepod']).toBe('true');
    },
    120_000,
  );

  it('an init container that never finishes ends in the step timeout, with its reason', async () => {
    const name = 'stuck';
    // Bound to a node no kubelet (and no kwok) serves: only what this test writes as the
    // node's report ever becomes the pod's status.
    await pipeOperator(
      name,
      { file: '/tmp/out/never.txt', kind: 'ConfigMap' },
      { nodeName: 'ghost-node' },
    );
    await waitFor('the pipe pod created', () =>
      core.readNamespacedPod({ namespace: failures, name: podOf(name) }),
    );
    await core.replaceNamespacedPodStatus({
      namespace: failures,
      name: podOf(name),
      body: {
        ...(await core.readNamespacedPod({ namespace: failures, name: podOf(name) })),
        status: {
          phase: 'Pending',
          initContainerStatuses: [
            {
              name: 'init',
              image: 'busybox',
              imageID: '',
              ready: false,
              restartCount: 4,
              state: {
                waiting: {
                  reason: 'CrashLoopBackOff',
                  message: 'back-off 1m20s restarting failed container',
                },
              },
              lastState: {
                terminated: { reason: 'Error', exitCode: 2 },
              },
            },
          ],
        },
      },
    });
    const ps = await terminal(failures, name);
    expect(ps.status).toBe('FATAL_ERROR');
    const step = ps.phases?.[0]?.steps?.[0];
    expect(step?.message).toMatch(/^did not finish within 25 s \(step timeout\): /);
    expect(step?.message).toContain(
      `pipe pod Pod ${failures}/${podOf(name)} is Pending and not Ready: init container init is waiting: CrashLoopBackOff: back-off 1m20s restarting failed container (last run: Error, exit code 2), 4 restarts`,
    );
  }, 120_000);
});
