// `plan status|history|trigger|abort`, `get` and `uninstall` as users run them: the built
// kubectl-kudo executable as a child process against the real apiserver, with Planwright's real
// webhook and controller for the test namespace. Flags go after positional arguments, as kuttl
// appends them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, parseAllDocuments } from 'yaml';
import { KubeClient } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/types.ts';
import { createTestNamespace, kubeConfig, mintUser, testCluster } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { waitFor } from '../../support/wait.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../support/planwright-start.ts';
import { ensureBuiltCli, runKudo, type CliResult } from './built-cli.ts';
import { createDemo, createDemoInstance, DEMO_OV } from './fixtures.ts';

describe('kubectl kudo plan / get / uninstall', () => {
  let ns: string;
  let client: KubeClient;
  let planwright: StartedPlanwright;

  const kudo = (args: string[], kubeconfig = testCluster().kubeconfigPath): Promise<CliResult> =>
    runKudo(args, { namespace: ns, kubeconfig });

  const instance = (name: string): Promise<Instance> =>
    client.request<Instance>({ path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/${name}` });

  const planState = async (name: string, plan: string): Promise<string | undefined> =>
    (await instance(name)).status?.planStatus?.[plan]?.status;

  beforeAll(async () => {
    await Promise.all([installKudoCrds(), ensureBuiltCli()]);
    ns = await createTestNamespace('cli-plan');
    client = new KubeClient(kubeConfig());
    planwright = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
    });
    await createDemo(client, ns);
  }, 300_000);

  afterAll(async () => {
    await planwright?.stop();
    client?.close();
  });

  it('names a missing instance and exits 255', async () => {
    const res = await kudo(['plan', 'status', '--instance', 'ghost']);
    expect(res).toMatchObject({ code: 255, stdout: '' });
    expect(res.stderr).toBe(`Error: instance ${ns}/ghost does not exist\n`);
    const history = await kudo(['plan', 'history', '--instance', 'ghost']);
    expect(history.stderr).toBe(`Error: client Error: instance ${ns}/ghost does not exist\n`);
    const trigger = await kudo(['plan', 'trigger', '--name', 'deploy', '--instance', 'ghost']);
    expect(trigger.code).toBe(255);
  });

  it('shows the plan tree once deploy ran, and the history', async () => {
    await createDemoInstance(client, ns, 'one');
    await waitFor('deploy COMPLETE', async () => (await planState('one', 'deploy')) === 'COMPLETE');
    const res = await kudo(['plan', 'status', '--instance', 'one']);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const lines = res.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `Plan(s) for "one" in namespace "${ns}":`,
      '.',
      `└── one (Operator-Version: "${DEMO_OV}" Active-Plan: "deploy")`,
    ]);
    expect(lines[3]).toBe('    ├── Plan broken (serial strategy) [NOT ACTIVE]');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {4}├── Plan deploy \(serial strategy\) \[COMPLETE\], last updated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
      ),
    );
    expect(lines).toContain('    │\u00a0\u00a0 └── Phase main (serial strategy) [COMPLETE]');
    expect(lines).toContain('    │\u00a0\u00a0     └── Step config [COMPLETE]');
    expect(lines).toContain('    └── Plan slow (serial strategy) [NOT ACTIVE]');
    expect(res.stdout.endsWith('\n\n')).toBe(true);

    const yaml = await kudo(['plan', 'status', '--instance', 'one', '-o', 'yaml']);
    expect((parse(yaml.stdout) as Instance['status'])?.planStatus?.['deploy']?.status).toBe(
      'COMPLETE',
    );

    const history = await kudo(['plan', 'history', '--instance', 'one']);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(
      /^\.\n├── broken \(NEVER_RUN\)\n├── deploy \(last finished run at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \(COMPLETE\)\)\n└── slow \(NEVER_RUN\)\n\n$/,
    );
  });

  it('passes the webhook denial of an unknown plan through and exits 255', async () => {
    const res = await kudo(['plan', 'trigger', '--name', 'nope', '--instance', 'one']);
    expect(res.code).toBe(255);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      new RegExp(
        '^Error: admission webhook "instance-admission.planwright.dev" denied the request: .*nope',
      ),
    );
  });

  it('triggers a plan, refuses another one while it runs, and aborts it', async () => {
    const res = await kudo(['plan', 'trigger', '--name', 'slow', '--instance', 'one']);
    expect(res).toEqual({
      code: 0,
      stdout: `Triggered slow plan for ${ns}/one instance\n`,
      stderr: '',
    });
    await waitFor(
      'slow IN_PROGRESS',
      async () => (await planState('one', 'slow')) === 'IN_PROGRESS',
    );

    const busy = await kudo(['plan', 'trigger', '--name', 'deploy', '--instance', 'one']);
    expect(busy.code).toBe(255);
    expect(busy.stderr).toContain('denied the request');
    expect(busy.stderr).toContain('slow');

    const abort = await kudo(['plan', 'abort', '--instance', 'one', '--wait', '--wait-time', '60']);
    expect(abort.code).toBe(0);
    expect(abort.stdout).toMatch(
      new RegExp(`^Abort of plan slow requested for ${ns}/one instance`),
    );
    expect(abort.stdout).toContain(`plan slow of instance ${ns}/one is ABORTED\n`);
    expect(await planState('one', 'slow')).toBe('ABORTED');

    const again = await kudo(['plan', 'abort', '--instance', 'one']);
    expect(again.code).toBe(255);
    expect(again.stderr).toBe(
      `Error: nothing to abort: plan slow of instance ${ns}/one is already ABORTED\n`,
    );

    const status = await kudo(['plan', 'status', '--instance', 'one']);
    expect(status.stdout).toContain('Plan slow (serial strategy) [ABORTED]');
  });

  it('--wait fails at once on FATAL_ERROR with the failing step, and follows a good run to COMPLETE', async () => {
    const broken = await kudo([
      'plan',
      'trigger',
      '--name',
      'broken',
      '--instance',
      'one',
      '--wait',
      '--wait-time',
      '120',
    ]);
    expect(broken.code).toBe(255);
    expect(broken.stdout).toContain(`Triggered broken plan for ${ns}/one instance\n`);
    expect(broken.stderr).toMatch(
      new RegExp(
        `^Error: plan "broken" of instance ${ns}/one ended FATAL_ERROR: step main/explode: .*wantErr`,
      ),
    );
    expect(broken.stderr).toContain(`kubectl kudo plan status --instance one -n ${ns}`);

    const good = await kudo(['plan', 'trigger', '--name', 'deploy', '--instance', 'one', '--wait']);
    expect(good.code).toBe(0);
    // Not a terminal: one plain line per change, then the result.
    expect(good.stdout).toMatch(/\[\d+s\] deploy\/main\/config: COMPLETE\n/);
    expect(good.stdout).toContain(`plan deploy of instance ${ns}/one is COMPLETE\n`);
    expect(good.stdout).not.toContain('\x1b[');
  });

  it('plan status --wait waits for the active plan and exits 255 when it fails', async () => {
    const trigger = await kudo(['plan', 'trigger', '--name', 'broken', '--instance', 'one']);
    expect(trigger.code).toBe(0);
    const res = await kudo(['plan', 'status', '--instance', 'one', '--wait']);
    expect(res.code).toBe(255);
    expect(res.stdout).toContain('Plan broken (serial strategy) [FATAL_ERROR]');
    expect(res.stderr).toBe(`Error: plan "broken" ended FATAL_ERROR for instance ${ns}/one\n`);
    const good = await kudo(['plan', 'trigger', '--name', 'deploy', '--instance', 'one']);
    expect(good.code).toBe(0);
    const done = await kudo(['plan', 'status', '--instance', 'one', '--wait']);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/Plan deploy \(serial strategy\) \[COMPLETE\]/);
  });

  it('lists instances, operators and operator versions, as trees or objects', async () => {
    const instances = await kudo(['get', 'instances']);
    expect(instances).toEqual({
      code: 0,
      stdout: `List of current installed instances in namespace "${ns}":\n.\n└── one\n\n`,
      stderr: '',
    });
    const all = await kudo(['get', 'all']);
    expect(all.stdout).toBe(
      `List of current installed operators including versions and instances in namespace "${ns}":\n.\n└── cli-demo\n    └── ${DEMO_OV}\n        └── one\n\n`,
    );
    const yaml = await kudo(['get', 'operatorversions', '-o', 'yaml']);
    const docs = parseAllDocuments(yaml.stdout).map((d) => d.toJS() as Record<string, unknown>);
    expect(yaml.stdout.startsWith('---\n')).toBe(true);
    expect(yaml.stdout.endsWith('...\n')).toBe(true);
    expect(docs[0]).toMatchObject({ kind: 'OperatorVersion', metadata: { name: DEMO_OV } });
    const json = JSON.parse((await kudo(['get', 'operators', '-o', 'json'])).stdout) as unknown[];
    expect(json).toEqual([expect.objectContaining({ kind: 'Operator' })]);
  });

  it('skips the CRD check for a user who may not read CRDs (403) and reports the real error', async () => {
    const nobody = await mintUser('cli-nobody');
    const res = await kudo(['plan', 'status', '--instance', 'one'], nobody.kubeconfigPath);
    expect(res.code).toBe(255);
    expect(res.stderr).not.toContain('CRDs invalid');
    expect(res.stderr).toContain('forbidden');
  });

  it('uninstalls, waiting until the Instance is gone; a missing one is an error', async () => {
    const missing = await kudo(['uninstall', '--instance', 'ghost']);
    expect(missing.code).toBe(255);
    expect(missing.stderr).toBe(
      `Error: instance ghost in namespace ${ns} does not exist in the cluster\n`,
    );
    const res = await kudo(['uninstall', '--instance', 'one', '--wait', '--wait-time', '60']);
    expect(res).toEqual({ code: 0, stdout: 'instance.kudo.dev/v1beta1/one deleted\n', stderr: '' });
    await expect(instance('one')).rejects.toMatchObject({ statusCode: 404 });
  });
});
