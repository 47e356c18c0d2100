// KUDO's own declarative test cases (../shared/kudo-cases/<suite>) run by the real kuttl
// (v0.25.0, built from Go modules), with the built `kubectl-kudo` and the version-matched
// kubectl on its PATH, against the jest project's shared control plane (bare for the
// integration project, workloads for e2e) or, for cases that need containers to really run, a
// dedicated cluster with a real node (`realNodes`). Planwright runs as users start it: the built
// CLI, `planwright start --install`, in a child process — every webhook configuration and
// default it has — with `--watch-namespaces kuttl-test-*` as the only addition (kuttl names its
// namespaces `kuttl-test-<pet name>`; the other tests of a shared cluster keep theirs). kuttl
// installs the cases' manifests (kudo-cases/manifests, manifestDirs) before the cases.
//
// PLANWRIGHT_KUTTL_REPLICAS=<n> runs the cases against n replicas of one installation sharing
// the Instances (`--shards n` each; the first registers the webhooks, the others are started
// as further replicas of the same namespace and share the shards): what docs/replicas.md says
// about sharding, under KUDO's own cases. Default 1.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { webhookConfigurations } from '../../../src/cli/install.ts';
import { startLocalCluster, type LocalCluster } from '../../../src/localcluster/index.ts';
import { kubeConfig, testCluster } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { KUDO_CASES_DIR } from '../../support/shared.ts';
import { ensureBuiltCli, KUBECTL_KUDO } from '../../integration/cli/built-cli.ts';
import {
  registeredConfigurations,
  startPlanwrightCli,
  webhookSettings,
  type StartedPlanwright,
} from '../../support/planwright-start.ts';
import { ensureKuttl } from './build.ts';
import { startReplicas, type Replicas } from './replicas.ts';
import { caseLog, runKuttlSuite, type KuttlRun } from './suite.ts';

/** kuttl first waits for ServiceAccount default/default; a bare control plane has no controller making it. */
async function ensureDefaultServiceAccount(kubeconfig: string): Promise<void> {
  const core = kubeConfig(kubeconfig).makeApiClient(k8s.CoreV1Api);
  await core
    .createNamespacedServiceAccount({
      namespace: 'default',
      body: { metadata: { name: 'default' } },
    })
    .catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
}

type Registration = Parameters<typeof webhookSettings>[0];

/** kuttl names each case's namespace `kuttl-test-<pet name>`. */
const PREFIX = 'kuttl-test-';

export interface KudoCaseOptions {
  /** Seconds per step (kuttl's default is 30). */
  readonly timeout?: number;
  /**
   * Run on a cluster of its own with a real node (kubelet, containerd, runc; images from the
   * cluster's registry): containers exit, keep running and fail to pull for real.
   */
  readonly realNodes?: boolean;
}

export function describeKudoCases(
  title: string,
  suites: readonly string[],
  options: KudoCaseOptions = {},
): void {
  const cases = suites.flatMap((suite) =>
    existsSync(join(KUDO_CASES_DIR, suite))
      ? readdirSync(join(KUDO_CASES_DIR, suite))
          .sort()
          .map((name) => ({ suite, name }))
      : [],
  );

  describe(title, () => {
    let planwright: StartedPlanwright | undefined;
    let others: Replicas | undefined;
    let registered: { mutating: Registration; validating: Registration } | undefined;
    let dedicated: LocalCluster | undefined;
    let run: KuttlRun;

    beforeAll(
      async () => {
        const progress = (line: string): void =>
          void process.stderr.write(`[kuttl build] ${line}\n`);
        if (options.realNodes) {
          dedicated = await startLocalCluster({
            mode: 'workloads',
            nodeKind: 'real',
            binaries: testCluster().binaries,
            onProgress: (line) => void process.stderr.write(`[real-node cluster] ${line}\n`),
          });
          // Real nodes are possible on the machines this suite runs on (root, Linux).
          if (dedicated.nodeKind !== 'real') throw new Error('no real node could be started');
        }
        const kubeconfig = dedicated?.kubeconfigPath ?? testCluster().kubeconfigPath;
        const [kuttl] = await Promise.all([
          ensureKuttl({ onProgress: progress }),
          ensureBuiltCli(),
          installKudoCrds(kubeconfig),
          ensureDefaultServiceAccount(kubeconfig),
        ]);
        const replicas = Number(process.env['PLANWRIGHT_KUTTL_REPLICAS'] ?? 1);
        const shards = replicas > 1 ? ['--shards', String(replicas)] : [];
        planwright = await startPlanwrightCli({
          kubeconfig,
          watchNamespaces: `${PREFIX}*`,
          args: shards,
        });
        if (replicas > 1) {
          others = await startReplicas({
            kubeconfig,
            count: replicas - 1,
            args: ['--watch-namespaces', `${PREFIX}*`, ...shards],
          });
          process.stderr.write(`[kuttl] ${replicas} replicas of one installation, a shard each\n`);
        }
        registered = await registeredConfigurations(kubeconfig);
        run = await runKuttlSuite({
          kuttl,
          kubectl: testCluster().binaries.kubectl,
          kubectlKudo: KUBECTL_KUDO,
          kubeconfig,
          testDirs: suites.map((s) => join(KUDO_CASES_DIR, s)),
          manifestDirs: [join(KUDO_CASES_DIR, 'manifests')],
          timeout: options.timeout ?? 30,
          parallel: 4,
        });
      },
      // Cold: kuttl is built from Go modules first (about 4 CPU-minutes).
      45 * 60_000,
    );

    afterAll(async () => {
      await others?.stop();
      await planwright?.stop();
      await dedicated?.stop();
    });

    it('runs with the webhook configurations planwright start --install registers', async () => {
      // Everything that decides which requests reach Planwright and what a failure does; only
      // where it is served (URL, CA) and the namespace filter (a match condition) may differ.
      const manifests = await webhookConfigurations();
      const wanted = (kind: string): unknown =>
        webhookSettings((manifests.find((m) => m.kind === kind) ?? {}) as Registration);
      expect(webhookSettings(registered!.mutating)).toEqual(wanted('MutatingWebhookConfiguration'));
      expect(webhookSettings(registered!.validating)).toEqual(
        wanted('ValidatingWebhookConfiguration'),
      );
      expect(manifests.map((m) => m.kind).sort()).toEqual([
        'MutatingWebhookConfiguration',
        'ValidatingWebhookConfiguration',
      ]);
    });

    it('finds the cases and kuttl reports on every one', () => {
      expect(cases.length).toBeGreaterThan(0);
      expect(run.results.map((r) => r.name).sort()).toEqual(cases.map((c) => c.name).sort());
    });

    it.each(cases)('$suite/$name', ({ name }) => {
      const result = run.results.find((r) => r.name === name);
      if (!result?.passed) {
        const tail = `${planwright?.tail(15) ?? ''}${others ? `\n--- other replicas\n${others.tail(15)}` : ''}`;
        throw new Error(
          `${result?.failure ?? 'kuttl did not report this case'}\n--- kuttl log\n${caseLog(run.output, name)}\n--- Planwright log (tail)\n${tail}`,
        );
      }
      expect(result.passed).toBe(true);
    });

    it('kuttl exits 0 when every case passed', () => {
      expect(run.exitCode).toBe(0);
    });
  });
}
