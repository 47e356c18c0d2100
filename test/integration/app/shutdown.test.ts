// SIGTERM against Planwright started as users start it (`planwright start --install`, the
// built CLI in a child process, its webhooks registered for the test's namespace): during
// startup, during a reconcile and during a webhook call it exits 0 on its own — Node ends a
// process only when no handle (socket, timer, child process, server) is left open, so exiting
// at all proves none is. A second SIGTERM while stopping forces the exit with 130.
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import tls from 'node:tls';
import { KubeClient } from '../../../src/kube/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { validOperatorVersion } from '../../support/operator-versions.ts';
import { waitFor } from '../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { createKudoObject, instanceObject } from '../../support/kudo-objects.ts';

const admin = new KubeClient(kubeConfig());
/** Started and not yet stopped (stopping twice would remove another file's registrations). */
const started = new Set<StartedPlanwright>();

afterAll(async () => {
  // A failed assertion must not leave a Planwright running (or its lock held).
  for (const planwright of started) {
    if (planwright.proc.exitCode === null) planwright.proc.kill('SIGKILL');
    await planwright.stop();
  }
  admin.close();
});

/** The exit code, or a failure naming open handles when the process does not end by itself. */
function exitWithin(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`still running ${ms} ms after SIGTERM: something is left open`)),
      ms,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

async function start(
  prefix: string,
  until?: 'listening',
): Promise<{ planwright: StartedPlanwright; namespace: string }> {
  await installKudoCrds();
  const namespace = await createTestNamespace(prefix);
  const planwright = await startPlanwrightCli({
    kubeconfig: testCluster().kubeconfigPath,
    watchNamespaces: [namespace],
    ...(until ? { until } : {}),
  });
  started.add(planwright);
  return { planwright, namespace };
}

/** Exits, then the harness removes its registrations and lets the next Planwright start. */
async function stopped(planwright: StartedPlanwright): Promise<void> {
  started.delete(planwright);
  await planwright.stop();
}

// Each test starts the built CLI (the first may build dist/ first) and stops it.
describe('shutdown', () => {
  it('exits 0 on SIGTERM during startup', async () => {
    // Its webhook server listens; it is still registering, probing its webhooks and syncing
    // its caches.
    const { planwright } = await start('sigterm-start', 'listening');
    expect(planwright.log()).not.toContain('Planwright is running');
    planwright.proc.kill('SIGTERM');
    expect(await exitWithin(planwright.proc, 30_000)).toBe(0);
    expect(planwright.log()).toMatch(/"msg":"manager stopped"/);
    await stopped(planwright);
  });

  it('exits 0 on SIGTERM during a reconcile', async () => {
    const { planwright, namespace } = await start('sigterm-reconcile');
    // A template whose render runs far longer than the test: the reconcile stays in flight.
    const ov = 'slow-0.1.0';
    const valid = validOperatorVersion(ov, namespace);
    const loop =
      '{{ range until 1000 }}{{ range until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}{{ end }}';
    await createKudoObject(admin, namespace, 'operatorversions', {
      ...valid,
      spec: {
        ...valid.spec,
        templates: { 'config.yaml': loop + (valid.spec?.templates?.['config.yaml'] ?? '') },
      },
    });
    await createKudoObject(admin, namespace, 'instances', instanceObject('slow', ov));
    await waitFor(
      'a reconcile in flight',
      async () =>
        /^controller_runtime_active_workers\{controller="instances"\} [1-9]/m.test(
          await planwright.metrics(),
        ),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    planwright.proc.kill('SIGTERM');
    expect(await exitWithin(planwright.proc, 40_000)).toBe(0);
    expect(planwright.log()).toMatch(/"msg":"controller stopped"/);
    await stopped(planwright);
  });

  it('exits 0 on SIGTERM during a webhook call, and 130 on a second SIGTERM while stopping', async () => {
    for (const second of [false, true]) {
      const { planwright } = await start(second ? 'sigterm-twice' : 'sigterm-webhook');
      // An admission request whose body is still arriving: in flight at the server. (Its
      // development certificate is made at start: not the test's to trust.)
      const socket = tls.connect({
        host: '127.0.0.1',
        port: planwright.port,
        rejectUnauthorized: false,
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', resolve);
        socket.once('error', reject);
      });
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(
        'POST /mutate/instances HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Content-Length: 1000\r\n\r\n{"apiVersion":',
      );
      await new Promise((r) => setTimeout(r, 300));
      planwright.proc.kill('SIGTERM');
      if (second) {
        await new Promise((r) => setTimeout(r, 300));
        planwright.proc.kill('SIGTERM');
        expect(await exitWithin(planwright.proc, 10_000)).toBe(130);
      } else {
        // The server lets the request finish within its grace, then closes the connection.
        expect(await exitWithin(planwright.proc, 30_000)).toBe(0);
        await closed;
      }
      socket.destroy();
      await stopped(planwright);
    }
  });
});
