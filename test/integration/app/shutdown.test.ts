// SIGTERM against Planwright as a child process (the App with the webhook on 127.0.0.1 and the
// Instance controller for the test's namespace): during startup, during a reconcile and during
// a webhook call it exits 0 on its own — Node ends a process only when no handle (socket,
// timer, child process, server) is left open, so exiting at all proves none is. A second
// SIGTERM while stopping forces the exit with 130.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import tls from 'node:tls';
import { createInterface } from 'node:readline';
import { KubeClient } from '../../../src/kube/index.ts';
import { createTestNamespace, kubeConfig, testCluster, uniqueName } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { validOperatorVersion } from '../../support/operator-versions.ts';
import { waitFor } from '../../support/wait.ts';
import { call, startPlanwrightChild } from '../../support/planwright-child.ts';
import type { ChildSettings } from '../../support/planwright-child-main.ts';
import { createKudoObject, instanceObject } from '../../support/kudo-objects.ts';

const admin = new KubeClient(kubeConfig());
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
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

async function settingsFor(prefix: string): Promise<ChildSettings> {
  await installKudoCrds();
  const namespace = await createTestNamespace(prefix);
  return {
    namespaces: [namespace],
    webhookName: uniqueName(`pw-${prefix}`),
    render: { workers: 1, deadlineMs: 60_000, maxHeapMb: 128, decodeDeadlineMs: 4_000 },
  };
}

describe('shutdown', () => {
  it('exits 0 on SIGTERM during startup', async () => {
    const settings = await settingsFor('sigterm-start');
    const child = spawn(
      process.execPath,
      [
        '--import',
        './scripts/register-ts.mjs',
        'test/support/planwright-child-main.ts',
        testCluster().kubeconfigPath,
        JSON.stringify(settings),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let log = '';
    child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    // The manager has just been started: caches, server and pools are coming up.
    await new Promise<void>((resolve) =>
      createInterface({ input: child.stdout }).on('line', (l) => l === 'STARTING' && resolve()),
    );
    child.kill('SIGTERM');
    expect(await exitWithin(child, 30_000)).toBe(0);
    expect(log).toMatch(/"msg":"manager stopped"/);
  });

  it('exits 0 on SIGTERM during a reconcile', async () => {
    const settings = await settingsFor('sigterm-reconcile');
    const namespace = settings.namespaces[0] ?? '';
    const child = await startPlanwrightChild(testCluster().kubeconfigPath, settings);
    children.push(child.proc);
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
    const agent = new https.Agent({ ca: child.caPem });
    await waitFor(
      'a reconcile in flight',
      async () => {
        const { text } = await call(child, agent, '/metrics');
        return /^controller_runtime_active_workers\{controller="instances"\} [1-9]/m.test(text);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    agent.destroy();
    child.proc.kill('SIGTERM');
    expect(await exitWithin(child.proc, 40_000)).toBe(0);
    expect(child.log()).toMatch(/"msg":"controller stopped"/);
  });

  it('exits 0 on SIGTERM during a webhook call, and 130 on a second SIGTERM while stopping', async () => {
    for (const second of [false, true]) {
      const settings = await settingsFor(second ? 'sigterm-twice' : 'sigterm-webhook');
      const child = await startPlanwrightChild(testCluster().kubeconfigPath, settings);
      children.push(child.proc);
      // An admission request whose body is still arriving: in flight at the server.
      const socket = tls.connect({ host: '127.0.0.1', port: child.port, ca: child.caPem });
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
      child.proc.kill('SIGTERM');
      if (second) {
        await new Promise((r) => setTimeout(r, 300));
        child.proc.kill('SIGTERM');
        expect(await exitWithin(child.proc, 10_000)).toBe(130);
      } else {
        // The server lets the request finish within its grace, then closes the connection.
        expect(await exitWithin(child.proc, 30_000)).toBe(0);
        await closed;
      }
      socket.destroy();
    }
  });
});
