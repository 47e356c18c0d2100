// Further replicas of the Planwright that startPlanwrightCli started (same lease namespace:
// one installation): `planwright start` without --install, each on a free port, the same
// `--shards`. Resolves once every shard's Lease names a member and the members are as many as
// the replicas (each runs its share), so the cases start against a ring that is settled.
import { spawn, type ChildProcess } from 'node:child_process';
import { KubeClient } from '../../../src/kube/index.ts';
import { kubeConfig } from '../../support/cluster.ts';
import { startArgv } from '../../support/planwright-start.ts';
import { waitFor } from '../../support/wait.ts';

export interface Replicas {
  /** The last `n` lines of every replica's log. */
  tail(n: number): string;
  /** SIGTERM, and wait for each to exit. */
  stop(): Promise<void>;
}

export async function startReplicas(options: {
  readonly kubeconfig: string;
  readonly count: number;
  readonly args: readonly string[];
}): Promise<Replicas> {
  const logs: string[] = [];
  const procs: ChildProcess[] = [];
  for (let i = 0; i < options.count; i++) {
    const proc = spawn(
      process.execPath,
      startArgv({ kubeconfig: options.kubeconfig, install: false, args: options.args }),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    logs.push('');
    const collect = (c: Buffer): void => {
      logs[i] = ((logs[i] ?? '') + c.toString()).slice(-1_000_000);
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    procs.push(proc);
  }
  const replicas: Replicas = {
    tail: (n) =>
      logs.map((l, i) => `[replica ${i + 2}]\n${l.split('\n').slice(-n).join('\n')}`).join('\n'),
    stop: async () => {
      await Promise.all(
        procs.map(async (p) => {
          if (p.exitCode !== null) return;
          const exited = new Promise((r) => p.once('exit', r));
          p.kill('SIGTERM');
          await exited;
        }),
      );
    },
  };
  const client = new KubeClient(kubeConfig(options.kubeconfig));
  try {
    await waitFor(
      `${options.count + 1} replicas sharing the shards`,
      async () => {
        const leases = await client.request<{
          items: Array<{
            metadata: { labels?: Record<string, string> };
            spec?: { holderIdentity?: string };
          }>;
        }>({
          path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
          query: { labelSelector: 'planwright.dev/shard-ring=planwright' },
        });
        const role = (l: (typeof leases.items)[number]): string =>
          l.metadata.labels?.['planwright.dev/shard-ring-role'] ?? '';
        const members = leases.items.filter((l) => role(l) === 'member' && l.spec?.holderIdentity);
        const holders = new Set(
          leases.items.filter((l) => role(l) === 'shard').map((l) => l.spec?.holderIdentity ?? ''),
        );
        return (
          members.length === options.count + 1 &&
          holders.size === options.count + 1 &&
          !holders.has('')
        );
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
  } catch (err) {
    await replicas.stop();
    throw new Error(`${(err as Error).message}\n${replicas.tail(30)}`);
  } finally {
    client.close();
  }
  return replicas;
}
