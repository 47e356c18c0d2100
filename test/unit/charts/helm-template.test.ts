// charts/planwright as Helm itself sees it (helm built from its Go module, test/support/helm.ts):
// `helm lint` finds nothing, and for each set of values `helm template` renders exactly the
// objects `planwright init` installs with the same choices (src/cli/manifests.ts) — the
// release's namespace instead of init's Namespace object, the CRDs without Helm's keep
// annotation when crds.keep is false — plus the arguments of the values init has no flag for
// (tenancy). Values the chart does not accept are refused by Helm, naming them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { installationObjects, type InstallationOptions } from '../../../src/cli/manifests.ts';
import type { ApplyObject } from '../../../src/kube/index.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';
import { ensureHelm, runHelm } from '../../support/helm.ts';

const CHART = join(repositoryRoot(), 'charts', 'planwright');
const BUILD_MS = 3_600_000;

function key(o: ApplyObject): string {
  return `${o.kind ?? ''}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

/** Objects by key, nulls and empty annotation maps dropped (YAML `annotations:` is null). */
function normalized(objects: readonly ApplyObject[]): Record<string, unknown> {
  const clean = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = clean(x);
      return out;
    }
    return v;
  };
  return Object.fromEntries(objects.map((o) => [key(o), clean(o)]));
}

describe('helm lint and helm template of charts/planwright', () => {
  let home: string;
  const helm = (args: readonly string[]) => runHelm(args, { home });
  const rendered = async (namespace: string, sets: readonly string[]): Promise<ApplyObject[]> => {
    const res = await helm([
      'template',
      'planwright',
      CHART,
      '--namespace',
      namespace,
      '--set',
      'crds.keep=false',
      ...sets.flatMap((s) => ['--set', s]),
    ]);
    expect([res.code, res.stderr]).toEqual([0, '']);
    return parseAllDocuments(res.stdout)
      .map((d) => d.toJS() as ApplyObject | null)
      .filter((o): o is ApplyObject => o !== null);
  };
  const installed = async (options: InstallationOptions): Promise<ApplyObject[]> =>
    (await installationObjects(options)).filter((o) => o.kind !== 'Namespace');

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'helm-home-'));
    await ensureHelm({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  }, BUILD_MS);

  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('lints clean', async () => {
    const res = await helm(['lint', '--strict', CHART]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(res.stdout).not.toMatch(/\[(INFO|WARNING|ERROR)\]/);
  });

  it.each([
    ['the default installation', 'planwright-system', [], {}],
    ['another namespace', 'ops', [], { namespace: 'ops' }],
    [
      'the cert-manager variant',
      'ops',
      ['certManager.enabled=true'],
      { namespace: 'ops', certManager: true },
    ],
    [
      'a namespaced installation',
      'ops',
      ['watchNamespaces={team-a,team-b}'],
      { namespace: 'ops', watchNamespaces: ['team-a', 'team-b'] },
    ],
    [
      'a namespaced cert-manager installation',
      'planwright-system',
      ['watchNamespaces={team-a}', 'certManager.enabled=true'],
      { watchNamespaces: ['team-a'], certManager: true },
    ],
    [
      'three replicas sharing six shards',
      'planwright-system',
      ['replicas=3', 'shards=6'],
      { replicas: 3, shards: 6 },
    ],
    [
      'one replica, one shard, cert-manager',
      'ops',
      ['replicas=1', 'shards=1', 'certManager.enabled=true'],
      { namespace: 'ops', replicas: 1, shards: 1, certManager: true },
    ],
    [
      'another image',
      'planwright-system',
      ['image.repository=registry.example/pw', 'image.tag=1.2.3'],
      { image: 'registry.example/pw:1.2.3' },
    ],
  ] as const)('renders what init installs: %s', async (_name, namespace, sets, options) => {
    const chart = await rendered(namespace, sets);
    expect(normalized(chart)).toEqual(normalized(await installed({ ...options })));
  });

  it('renders CRDs Helm keeps on uninstall by default, and none with crds.enabled=false', async () => {
    const res = await helm(['template', 'planwright', CHART, '--namespace', 'planwright-system']);
    const crds = parseAllDocuments(res.stdout)
      .map((d) => d.toJS() as ApplyObject | null)
      .filter((o) => o?.kind === 'CustomResourceDefinition');
    expect(crds.map((c) => c?.metadata?.annotations?.['helm.sh/resource-policy'])).toEqual([
      'keep',
      'keep',
      'keep',
    ]);
    const none = await rendered('planwright-system', ['crds.enabled=false']);
    expect(none.filter((o) => o.kind === 'CustomResourceDefinition')).toEqual([]);
  });

  it('sets replicas, resources and the tenancy flags on the Deployment', async () => {
    const chart = await rendered('planwright-system', [
      'replicas=3',
      'resources.limits.memory=2Gi',
      'tenancy.posture=multi-tenant',
      'tenancy.allowNamespace={team-a=shared}',
      'tenancy.allowClusterScoped={platform}',
      'tenancy.defaultServiceAccount=planwright-tenant',
      'tenancy.allowServiceAccount={*=deployer}',
    ]);
    const deployment = chart.find((o) => o.kind === 'Deployment') as ApplyObject & {
      spec: {
        replicas: number;
        template: { spec: { containers: Array<Record<string, unknown>> } };
      };
    };
    const expected = (await installed({})).find(
      (o) => o.kind === 'Deployment',
    ) as typeof deployment;
    const container = deployment.spec.template.spec.containers[0] ?? {};
    const base = expected.spec.template.spec.containers[0] ?? {};
    expect(deployment.spec.replicas).toBe(3);
    // The requests stay those of manifests/, the limit is the value's.
    expect(container['resources']).toEqual({
      requests: (base['resources'] as { requests: unknown }).requests,
      limits: { memory: '2Gi' },
    });
    expect(container['args']).toEqual([
      ...(base['args'] as string[]),
      '--tenancy',
      'multi-tenant',
      '--allow-namespace',
      'team-a=shared',
      '--allow-cluster-scoped',
      'platform',
      '--allow-service-account',
      '*=deployer',
      '--default-service-account',
      'planwright-tenant',
    ]);
  });

  it('refuses values the chart does not know, naming them', async () => {
    const posture = await helm(['template', 'p', CHART, '--set', 'tenancy.posture=open']);
    expect(posture.code).toBe(1);
    expect(posture.stderr).toContain(
      "at '/tenancy/posture': value must be one of 'kudo', 'multi-tenant'",
    );
    const shards = await helm(['template', 'p', CHART, '--set', 'shards=0']);
    expect(shards.code).toBe(1);
    expect(shards.stderr).toContain("at '/shards'");
    const typo = await helm(['template', 'p', CHART, '--set', 'replica=3']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/replica/);
  });
});
