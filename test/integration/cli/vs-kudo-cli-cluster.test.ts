// KUDO 0.19's own kubectl-kudo as the oracle for the commands that need a cluster: install,
// get, plan status|history|trigger, update, upgrade, uninstall and version, against the shared
// bare control plane with the kudo.dev CRDs and Planwright running as users start it
// (`planwright start --install`, the built CLI), which executes the plans of both CLIs'
// Instances. Each step of one scenario runs in both CLIs at once, each in its own namespace;
// stdout, stderr and the exit code must be identical after the normalisations docs/cli.md
// lists, or differ only as a `cluster` row of its "Deliberate differences from KUDO" table
// allows. The table of steps is printed; each `cluster` row must be used by some step.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { KubeClient } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/index.ts';
import { createTestNamespace, kubeConfig, testCluster } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { ensureKudoCli } from '../../support/kudo-cli.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { waitFor } from '../../support/wait.ts';
import { ensureBuiltCli, KUBECTL_KUDO, type CliResult } from './built-cli.ts';
import {
  preparePackages,
  readAllowedDifferences,
  runCli as run,
  type Stream,
} from './vs-kudo-cli/cases.ts';
import {
  CLUSTER_STEPS,
  normaliseClusterOutput,
  prepareClusterPackages,
  stepArgs,
  type ClusterStep,
} from './vs-kudo-cli/cluster-cases.ts';

const CLUSTER_ROW = 'cluster';
const TERMINAL = new Set(['COMPLETE', 'FATAL_ERROR', 'ABORTED']);

interface Outcome {
  readonly command: string;
  readonly differs: readonly Stream[];
  readonly allowed: boolean;
  readonly kudo: CliResult;
  readonly ours: CliResult;
}

/** Whether the plan the webhook scheduled for the Instance (spec.planExecution) is over. */
function scheduledPlanOver(instance: Instance | undefined): boolean {
  if (!instance) return false;
  const pe = instance.spec?.planExecution;
  if (!pe?.planName || !pe.uid) return false;
  const plan = instance.status?.planStatus?.[pe.planName];
  return plan?.uid === pe.uid && TERMINAL.has(plan.status ?? '');
}

describe('kubectl kudo against KUDO 0.19 kubectl-kudo on a cluster', () => {
  const allowed = readAllowedDifferences().filter((a) => a.packages.includes(CLUSTER_ROW));
  let work: string;
  let planwright: StartedPlanwright | undefined;
  let client: KubeClient;
  const outcomes: Outcome[] = [];
  let kudoBinary: string;
  let ourNs: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const kubeconfig = testCluster().kubeconfigPath;
    [kudoBinary] = await Promise.all([
      ensureKudoCli({ onProgress: (line) => process.stderr.write(`${line}\n`) }),
      ensureBuiltCli(),
      installKudoCrds(),
    ]);
    client = new KubeClient(kubeConfig());
    // Both names have the same length, so nothing printed is aligned differently.
    const kudoNs = await createTestNamespace('vsk');
    ourNs = await createTestNamespace('vsp');
    planwright = await startPlanwrightCli({
      kubeconfig,
      watchNamespaces: [kudoNs, ourNs, `${kudoNs}-new`, `${ourNs}-new`].join(','),
    });
    work = mkdtempSync(join(tmpdir(), 'vs-kudo-cli-cluster-'));
    const pkgs = join(work, 'pkgs');
    preparePackages(pkgs);
    prepareClusterPackages(pkgs);
    mkdirSync(join(work, 'home'));
    env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: join(work, 'home'),
    };
    const settle = async (step: ClusterStep): Promise<void> => {
      if (!step.settle) return;
      const { instance, namespace = '{ns}' } = step.settle;
      for (const ns of [kudoNs, ourNs]) {
        const where = namespace.replaceAll('{ns}', ns);
        await waitFor(
          `the plan scheduled for Instance ${where}/${instance} to end`,
          async () =>
            scheduledPlanOver(
              await client.request<Instance>({
                path: `/apis/kudo.dev/v1beta1/namespaces/${where}/instances/${instance}`,
              }),
            ),
          { timeoutMs: 120_000, intervalMs: 250 },
        );
      }
    };
    for (const step of CLUSTER_STEPS) {
      const [kudo, ours] = await Promise.all([
        run(kudoBinary, stepArgs(step, kudoNs, kubeconfig), pkgs, env),
        run(process.execPath, [KUBECTL_KUDO, ...stepArgs(step, ourNs, kubeconfig)], pkgs, env),
      ]);
      await settle(step);
      const norm = (r: CliResult, ns: string): CliResult => ({
        code: r.code,
        stdout: normaliseClusterOutput(r.stdout, ns),
        stderr: normaliseClusterOutput(r.stderr, ns),
      });
      const k = norm(kudo, kudoNs);
      const o = norm(ours, ourNs);
      const differs: Stream[] = [];
      if (k.stdout !== o.stdout) differs.push('stdout');
      if (k.stderr !== o.stderr) differs.push('stderr');
      if (k.code !== o.code) differs.push('exit');
      const allowedBy = allowed.find(
        (a) => a.command === step.command && differs.every((d) => a.streams.includes(d)),
      );
      outcomes.push({
        command: step.command,
        differs,
        allowed: differs.length > 0 && allowedBy !== undefined,
        kudo: k,
        ours: o,
      });
    }
    const same = outcomes.filter((o) => o.differs.length === 0).length;
    process.stderr.write(
      [
        '| step | result |',
        '|---|---|',
        ...outcomes.map(
          (o) =>
            `| ${o.command} | ${o.differs.length === 0 ? '=' : o.allowed ? 'doc' : `≠ ${o.differs.join('+')}`} |`,
        ),
        `identical: ${same}/${outcomes.length}, documented differences: ${
          outcomes.filter((o) => o.allowed).length
        }`,
      ].join('\n') + '\n',
    );
  }, 1_800_000);

  afterAll(async () => {
    await planwright?.stop();
    client?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('prints what KUDO prints on a cluster, except the documented differences', () => {
    const unexplained = outcomes
      .filter((o) => o.differs.length > 0 && !o.allowed)
      .map((o) => ({ step: o.command, differs: o.differs, kudo: o.kudo, ours: o.ours }));
    expect(unexplained).toEqual([]);
  });

  it('uses every documented cluster difference (no stale rows)', () => {
    const unused = allowed.filter(
      (a) => !outcomes.some((o) => o.allowed && o.command === a.command),
    );
    expect(unused.map((a) => a.command)).toEqual([]);
  });

  it("diagnostics collect writes KUDO's bundle (its files, the same objects) plus Planwright's own files", async () => {
    const kubeconfig = testCluster().kubeconfigPath;
    const out = { kudo: join(work, 'diag-kudo'), ours: join(work, 'diag-ours') };
    // Both collect the same Instance: the scenario's hello, in Planwright's namespace.
    const args = (dir: string): string[] =>
      ['diagnostics', 'collect', '--instance', 'hello', '--namespace', ourNs].concat([
        '--kubeconfig',
        kubeconfig,
        '-O',
        dir,
      ]);
    const [kudo, ours] = await Promise.all([
      run(kudoBinary, args(out.kudo), work, env),
      run(process.execPath, [KUBECTL_KUDO, ...args(out.ours)], work, env),
    ]);
    // KUDO's CLI fails once the bundle is written when no KUDO manager runs (the case here).
    expect(kudo).toMatchObject({ code: 255, stderr: 'Error: kudo system namespace not found\n' });
    expect(ours).toMatchObject({ code: 0, stderr: '' });
    const files = (root: string): string[] =>
      (readdirSync(root, { recursive: true }) as string[])
        .filter((f) => statSync(join(root, f)).isFile())
        .sort();
    const kudoFiles = files(out.kudo);
    const ourFiles = files(out.ours);
    expect(kudoFiles).toContain('operator_hello-config/instance_hello/servicelist.yaml');
    expect(kudoFiles.filter((f) => !ourFiles.includes(f))).toEqual([]);
    expect(ourFiles.filter((f) => !kudoFiles.includes(f))).toEqual([
      'operator_hello-config/instance_hello/events.yaml',
      'operator_hello-config/instance_hello/inventory.yaml',
      'operator_hello-config/instance_hello/objects/configmap_hello-greeting.yaml',
      'operator_hello-config/instance_hello/objects/service_hello.yaml',
      'operator_hello-config/instance_hello/plan-status.txt',
      'operator_hello-config/instance_hello/plans.yaml',
      'planwright/deployment.yaml',
    ]);
    // The same objects in each of KUDO's files.
    const names = (root: string, file: string): unknown => {
      const doc = parse(readFileSync(join(root, file), 'utf8')) as {
        metadata?: { name?: string };
        items?: Array<{ metadata?: { name?: string } }>;
      };
      return doc.items ? doc.items.map((i) => i.metadata?.name).sort() : doc.metadata?.name;
    };
    for (const file of kudoFiles.filter((f) => f.startsWith('operator_'))) {
      expect([file, names(out.ours, file)]).toEqual([file, names(out.kudo, file)]);
    }
  });

  it('ran the whole scenario, most of it identical to KUDO', () => {
    expect(outcomes.length).toBe(CLUSTER_STEPS.length);
    const same = outcomes.filter((o) => o.differs.length === 0).length;
    expect(same).toBeGreaterThan(outcomes.length / 2);
  });
});
