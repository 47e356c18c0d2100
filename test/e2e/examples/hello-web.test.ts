// The README's quick start with examples/hello-web, as written, on the shared cluster with a
// real node (Planwright started as `npm start` starts it): the package installs with
// `kubectl kudo install … --wait`; its pod runs a real container (busybox's httpd, from the
// local cluster's registry) on the real node; `kubectl port-forward service/hello 8080:80`
// reaches the page it serves; `kubectl kudo update -p message=hi --wait` changes the page, which
// `kubectl exec deploy/hello -- wget -qO- localhost:8080` reads; uninstall removes it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../../../src/localcluster/index.ts';
import { ensureBuiltCli, runKudo } from '../../integration/cli/built-cli.ts';
import { createTestNamespace, kubectl, testCluster } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { requireRealNode } from '../../support/real-node.ts';
import { waitFor } from '../../support/wait.ts';

const EXAMPLE = join(repositoryRoot(), 'examples', 'hello-web');

/** `kubectl port-forward service/hello <port>:80`, until stopped; resolves once it listens. */
async function portForward(namespace: string): Promise<{ port: number; stop: () => void }> {
  const info = testCluster();
  const child: ChildProcess = spawn(
    info.binaries.kubectl,
    ['--kubeconfig', info.kubeconfigPath, '-n', namespace, 'port-forward', 'service/hello', ':80'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
  const port = await waitFor(
    'kubectl port-forward to listen',
    () => {
      const m = /Forwarding from 127\.0\.0\.1:(\d+) -> /.exec(out);
      if (m) return Number(m[1]);
      if (child.exitCode !== null) throw new Error(`kubectl port-forward exited: ${out}`);
      return undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return { port, stop: () => child.kill() };
}

describe("the quick start's hello-web on the real node", () => {
  let planwright: StartedPlanwright | undefined;
  let namespace = '';
  let home = '';
  const kudo = (args: readonly string[]) =>
    runKudo(args, { namespace, kubeconfig: testCluster().kubeconfigPath, home });

  beforeAll(async () => {
    requireRealNode("the quick start's hello-web");
    home = mkdtempSync(join(tmpdir(), 'hello-web-'));
    await Promise.all([installKudoCrds(), ensureBuiltCli()]);
    namespace = await createTestNamespace('hello-web');
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: namespace,
    });
  });

  afterAll(async () => {
    await planwright?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('serves its page from a real container, reached by port-forward and exec', async () => {
    const install = await kudo(['install', EXAMPLE, '--instance', 'hello', '--wait']);
    expect([install.code, install.stderr]).toEqual([0, '']);
    expect(install.stdout).toContain(`instance ${namespace}/hello ready`);

    const pods = await kubectl(['get', 'pods', '-n', namespace, '-o', 'json']);
    const items = (
      JSON.parse(pods.stdout) as {
        items: Array<{
          spec: { nodeName: string; containers: Array<{ image: string }> };
          status: { containerStatuses: Array<{ state: { running?: object } }> };
        }>;
      }
    ).items;
    expect(items.map((p) => p.spec.nodeName)).toEqual(['node-1']);
    // The image the package asked for, running. (Not status.image: the node's registry serves
    // one busybox image under several names, and containerd reports whichever name it pulled
    // that content under first.)
    expect(items[0]?.spec.containers.map((c) => c.image)).toEqual(['busybox:1.36']);
    expect(items[0]?.status.containerStatuses.map((c) => !!c.state.running)).toEqual([true]);

    const forward = await portForward(namespace);
    try {
      const page = await (await fetch(`http://127.0.0.1:${forward.port}/`)).text();
      expect(page).toContain('<h1>Hello from Planwright</h1>');
      expect(page).toContain(`${namespace}/hello`);
    } finally {
      forward.stop();
    }

    const update = await kudo(['update', '--instance', 'hello', '-p', 'message=hi', '--wait']);
    expect([update.code, update.stderr]).toEqual([0, '']);
    // The changed ConfigMap changed the pod template (KUDO's dependencies hash): a new pod
    // serves the new page.
    const served = await waitFor(
      'the new page served',
      async () => {
        const res = await kubectl(
          ['exec', '-n', namespace, 'deploy/hello', '--', 'wget', '-qO-', 'localhost:8080'],
          { timeoutMs: 20_000 },
        );
        return res.code === 0 && res.stdout.includes('<h1>hi</h1>') ? res.stdout : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(served).toContain('<h1>hi</h1>');

    const uninstall = await kudo(['uninstall', '--instance', 'hello', '--wait']);
    expect([uninstall.code, uninstall.stderr]).toEqual([0, '']);
  }, 300_000);
});
