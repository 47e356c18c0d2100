// Pipe tasks on the real node of the shared cluster, with Planwright started as `planwright
// start` runs it (the built CLI in a child process). The Pipe pod's init container really
// writes the files, the waiter really runs, and Planwright copies them out with `stat` and
// `tar` through the API server's pods/exec and the kubelet: the size limit, the env-file
// parser, the ConfigMaps/Secrets and the Deployment that mounts them, all on what a real
// container produced. A real kubelet's CrashLoopBackOff ends in the step timeout.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { Condition, Instance, PlanStatus } from '../../../../src/kudo/api/types.ts';
import { loadPackage } from '../../../../src/kudo/package/index.ts';
import {
  combineDigests,
  objectDigest,
} from '../../../../src/kudo/tasks/dependencies-hash/index.ts';
import type { ApplyObject } from '../../../../src/kube/apply.ts';
import { NODE_KIND_LABEL } from '../../../../src/localcluster/index.ts';
import { createTestNamespace, kubeConfig, kubectl, testCluster } from '../../../support/cluster.ts';
import { join } from 'node:path';
import {
  deployTerminal,
  installKudoCrds,
  KUDO_PACKAGES,
  kudoObjects,
} from '../../../support/kudo.ts';
import { offlineCowsay, type OfflineCowsay } from '../../../support/offline-cowsay.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { requireRealNode } from '../../../support/real-node.ts';
import { waitFor } from '../../../support/wait.ts';

const PAGE = '<html><body><pre>moo from a real container</pre></body></html>';
const STEP_TIMEOUT_S = 25;
// Not the default waiter image (busybox:1.36), written as a mirror would be: the flag counts.
const WAITER_IMAGE = 'docker.io/library/busybox:1.35';

describe('Pipe tasks on a real node, Planwright started as `planwright start`', () => {
  const kc = kubeConfig();
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const objects = kudoObjects(custom);
  const { create, getInstance } = objects;
  let planwright: StartedPlanwright | undefined;
  let cowsay: OfflineCowsay | undefined;
  let ns = '';
  let failures = '';
  let shipped = '';

  const terminal = (namespace: string, name: string): Promise<PlanStatus> =>
    deployTerminal(objects, { namespace, name });

  beforeAll(async () => {
    requireRealNode('Pipe tasks');
    await installKudoCrds();
    ns = await createTestNamespace('pipe');
    failures = await createTestNamespace('pipe-fail');
    shipped = await createTestNamespace('pipe-cowsay');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: `${ns},${failures},${shipped}`,
      args: ['--step-timeout', String(STEP_TIMEOUT_S), '--pipe-waiter-image', WAITER_IMAGE],
    });
  });

  afterAll(async () => {
    await planwright?.stop();
    await cowsay?.remove();
  });

  /** The kind of node (real or kwok) a pod runs on. */
  async function nodeKindOf(pod: k8s.V1Pod): Promise<string | undefined> {
    const node = await core.readNode({ name: pod.spec?.nodeName ?? '' });
    return node.metadata?.labels?.[NODE_KIND_LABEL];
  }

  it('cowsay (its init command writing the page) reaches COMPLETE, its ConfigMap served by its running Deployment', async () => {
    const pod = 'cowsayinstance.deploy.main.genfiles.genwww.pipepod';
    const artifact = 'cowsayinstance.deploy.main.genfiles.genwww.indexhtml';
    cowsay = await offlineCowsay(`echo '${PAGE}' > /tmp/index.html`);
    const pkg = await loadPackage(cowsay.dir, { namespace: ns });
    await create(ns, 'operators', pkg.operator);
    await create(ns, 'operatorversions', pkg.operatorVersion);
    await create(ns, 'instances', pkg.instance);
    const ps = await terminal(ns, 'cowsay-instance');
    expect(`${ps.status} ${ps.message ?? ''}`).toBe('COMPLETE ');

    const cm = await core.readNamespacedConfigMap({ namespace: ns, name: artifact });
    expect(cm.binaryData).toEqual({ 'index.html': Buffer.from(`${PAGE}\n`).toString('base64') });
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
    const web = pods.items[0] as k8s.V1Pod;
    expect(await nodeKindOf(web)).toBe('real');
    // The web server (the local nginx stand-in) serves the piped page.
    const served = await kubectl([
      'exec',
      '-n',
      ns,
      web.metadata?.name ?? '',
      '--',
      'wget',
      '-q',
      '-O',
      '-',
      'http://127.0.0.1/index.html',
    ]);
    expect(served).toMatchObject({ code: 0, stdout: `${PAGE}\n` });

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
  });

  it('cowsay as shipped: its init container cannot download the page here, and the step says so', async () => {
    const pkg = await loadPackage(join(KUDO_PACKAGES, 'cowsay'), { namespace: shipped });
    await create(shipped, 'operators', pkg.operator);
    await create(shipped, 'operatorversions', pkg.operatorVersion);
    await create(shipped, 'instances', pkg.instance);
    const pod = 'cowsayinstance.deploy.main.genfiles.genwww.pipepod';
    const ps = await terminal(shipped, 'cowsay-instance');
    expect(ps.status).toBe('FATAL_ERROR');
    const step = ps.phases?.[0]?.steps?.[0];
    expect(step?.message).toMatch(
      new RegExp(
        `^did not finish within ${STEP_TIMEOUT_S} s \\(step timeout\\): (task genwww: )?pipe pod Pod ${shipped}/${pod.replaceAll('.', '\\.')} is Pending and not Ready: init container init ` +
          // Caught between two runs it is terminated (that run is the failed one); waiting to
          // restart or running again, it names its last run.
          // (kubelet's back-off message names the pod with its uid in parentheses.)
          '(terminated: Error, exit code 1|(is waiting: CrashLoopBackOff: .*|is running) ' +
          '\\(last run: Error, exit code 1\\)), [1-9]\\d* restarts',
      ),
    );
    // Why, in the init container's own log (read through the kubelet): no name resolves here.
    const logs = await kubectl(['logs', '-n', shipped, pod, '-c', 'init']);
    expect(logs.stdout + logs.stderr).toContain("wget: bad address 'cowsay.morecode.org'");
  });

  /** An OperatorVersion with one Pipe task whose init container runs `script` into /tmp/out. */
  async function pipeOperator(
    name: string,
    pipe: Record<string, string>,
    script: string,
  ): Promise<void> {
    const spec = {
      volumes: [{ name: 'out', emptyDir: {} }],
      initContainers: [
        {
          name: 'init',
          image: 'busybox',
          command: ['/bin/sh', '-c', script],
          volumeMounts: [{ name: 'out', mountPath: '/tmp/out' }],
        },
      ],
      terminationGracePeriodSeconds: 0,
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
    /** What the init container runs. */
    readonly script: string;
    readonly message: string;
  }
  it.each<FailureCase>([
    {
      name: 'oversized',
      pipe: { file: '/tmp/out/big.bin', kind: 'ConfigMap' },
      script: 'head -c 1048577 /dev/zero > /tmp/out/big.bin',
      message:
        'pipe file /tmp/out/big.bin size 1048577 exceeds maximum file size of 1048576 bytes (1 MiB) in pod {ns}/oversized.deploy.main.files.gen.pipepod (container waiter)',
    },
    {
      name: 'missing',
      pipe: { file: '/tmp/out/missing.txt', kind: 'Secret' },
      script: 'echo not this one > /tmp/out/other.txt',
      message:
        "pipe file /tmp/out/missing.txt could not be read in pod {ns}/missing.deploy.main.files.gen.pipepod (container waiter): `stat -c %s /tmp/out/missing.txt` exited with code 1: stat: can't stat '/tmp/out/missing.txt': No such file or directory; does the init container write it there?",
    },
    {
      name: 'badenv',
      pipe: { envFile: '/tmp/out/vars.env', kind: 'ConfigMap' },
      script: "printf 'GOOD=1\\nthis line is not an assignment\\n' > /tmp/out/vars.env",
      message:
        'env file /tmp/out/vars.env: line 2 has no "=" (expected KEY=VALUE) (copied from pod {ns}/badenv.deploy.main.files.gen.pipepod)',
    },
    {
      name: 'linked',
      pipe: { file: '/tmp/out/cert.pem', kind: 'Secret' },
      script: 'ln -s /etc/hostname /tmp/out/cert.pem',
      message: 'pipe file /tmp/out/cert.pem from pod {ns}/linked.deploy.main.files.gen.pipepod',
    },
  ])(
    '$name: the step fails, naming file and pod; the pod stays for inspection',
    async ({ name, pipe, script, message }) => {
      await pipeOperator(name, pipe, script);
      const ps = await terminal(failures, name);
      expect(ps.status).toBe('FATAL_ERROR');
      const step = ps.phases?.[0]?.steps?.[0];
      expect(step?.status).toBe('FATAL_ERROR');
      expect(step?.message).toContain(`task gen: ${message.replaceAll('{ns}', failures)}`);
      // No artifact; the pod is kept (and runs the configured waiter image, on the real node).
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
      expect(await nodeKindOf(pod)).toBe('real');
      expect(pod.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    },
  );

  it('an init container that keeps failing ends in the step timeout, with the kubelet’s reason', async () => {
    const name = 'stuck';
    await pipeOperator(name, { file: '/tmp/out/never.txt', kind: 'ConfigMap' }, 'exit 2');
    const ps = await terminal(failures, name);
    expect(ps.status).toBe('FATAL_ERROR');
    const step = ps.phases?.[0]?.steps?.[0];
    expect(step?.message).toMatch(
      new RegExp(`^did not finish within ${STEP_TIMEOUT_S} s \\(step timeout\\): `),
    );
    // What the kubelet reports between two runs of the failing init container.
    expect(step?.message).toMatch(
      new RegExp(
        `pipe pod Pod ${failures}/${podOf(name).replaceAll('.', '\\.')} is Pending and not Ready: ` +
          'init container init (is waiting: CrashLoopBackOff: back-off \\d+s restarting failed container=init [^(]*|terminated: Error, exit code 2)' +
          '.*\\(last run: Error, exit code 2\\), [1-9]\\d* restarts',
      ),
    );
  });
});
