/**
 * `diagnostics collect --instance X`: KUDO's diagnostics bundle as a folder, in KUDO's layout
 * (`operator_<op>/<op>.yaml`, `operator_<op>/operatorversion_<ov>/<ov>.yaml`,
 * `operator_<op>/instance_<name>/<name>.yaml`, the operator's pods as `pod_<pod>/<pod>.yaml`
 * with each container's log as `<container>.log.gz`, one `<kind>list.yaml` per kind KUDO
 * listed, child Instances below `operator_<op>/operator_<child op>/`), plus Planwright's own
 * files: the objects the Instance applied (its inventory, each with whether it still exists),
 * Events, plan status, and the manager's pods and logs under `planwright/`. Secret values are
 * never written: `data` and `stringData` keep their keys with `<redacted: N bytes>`.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { ApiError, objectPath, ResourceMapper, type KubeClient } from '../../kube/index.ts';
import type { Instance, OperatorVersion } from '../../kudo/api/index.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { globals } from '../options.ts';
import { kudoYaml } from '../operator-folder.ts';
import { renderPlanStatus } from '../plan-view.ts';
import { cliVersion } from './version.ts';

const KUDO = '/apis/kudo.dev/v1beta1';
/** Where `planwright init` installs the manager (manifests/). */
const MANAGER_NAMESPACE = 'planwright-system';
const MANAGER_SELECTOR = 'app.kubernetes.io/name=planwright';
const OPERATOR_LABEL = 'kudo.dev/operator';

/** The lists KUDO's bundle holds for an operator's objects, as `<kind>list.yaml`. */
const KUDO_LISTS: ReadonlyArray<{
  readonly kind: string;
  readonly path: string;
  readonly namespaced: boolean;
}> = [
  { kind: 'service', path: '/api/v1', namespaced: true },
  { kind: 'deployment', path: '/apis/apps/v1', namespaced: true },
  { kind: 'statefulset', path: '/apis/apps/v1', namespaced: true },
  { kind: 'replicaset', path: '/apis/apps/v1', namespaced: true },
  { kind: 'serviceaccount', path: '/api/v1', namespaced: true },
  { kind: 'clusterrolebinding', path: '/apis/rbac.authorization.k8s.io/v1', namespaced: false },
  { kind: 'rolebinding', path: '/apis/rbac.authorization.k8s.io/v1', namespaced: true },
  { kind: 'clusterrole', path: '/apis/rbac.authorization.k8s.io/v1', namespaced: false },
  { kind: 'role', path: '/apis/rbac.authorization.k8s.io/v1', namespaced: true },
];

type Obj = Record<string, unknown> & {
  metadata?: { name?: string; uid?: string; annotations?: Record<string, string> };
};

interface CollectFlags {
  readonly instance?: string;
  readonly outputDirectory: string;
  readonly logSince?: number;
}

/** Go-style durations (`30s`, `5m`, `1h30m`) in seconds, as KUDO's `--log-since`. */
export function parseDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)];
  if (parts.map((p) => p[0]).join('') !== text || parts.length === 0) {
    throw new CliError(`invalid --log-since "${text}": use a duration like 30s, 5m or 1h30m`);
  }
  const unit = { h: 3600, m: 60, s: 1 } as const;
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as 'h' | 'm' | 's'], 0);
}

/** A Secret's values replaced by their sizes: the bundle is shared, secrets must not be. */
export function redactSecret(secret: Obj): Obj {
  const out: Obj = { ...secret };
  for (const field of ['data', 'stringData']) {
    const values = secret[field] as Record<string, string> | undefined;
    if (!values) continue;
    const bytes = (v: string): number =>
      field === 'data' ? Buffer.from(v, 'base64').length : Buffer.byteLength(v);
    out[field] = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, `<redacted: ${bytes(v)} bytes>`]),
    );
  }
  const annotations = secret.metadata?.annotations;
  if (annotations?.['kubectl.kubernetes.io/last-applied-configuration']) {
    out.metadata = {
      ...secret.metadata,
      annotations: {
        ...annotations,
        'kubectl.kubernetes.io/last-applied-configuration': '<redacted>',
      },
    };
  }
  return out;
}

export function diagnosticsCommand(ctx: CliContext): Command {
  const collect = new Command('collect')
    .description("collect data relevant for diagnostics of the provided instance's state")
    .option('--instance <name>', 'The instance name.')
    .option('-O, --output-directory <dir>', "The output directory. Defaults to 'diag'", 'diag')
    .addOption(
      new Option(
        '--log-since <duration>',
        'Only return logs newer than a relative duration like 5s, 2m, or 3h. Defaults to all logs.',
      ).argParser(parseDuration),
    )
    .action(async (flags: CollectFlags, cmd: Command) => {
      if (!flags.instance) throw new CliError('required flag(s) "instance" not set');
      // A bundle is one collection: never mixed with the files of an earlier one.
      if (existsSync(resolve(ctx.cwd, flags.outputDirectory))) {
        throw new CliError(`target directory ${flags.outputDirectory} already exists`);
      }
      const cluster = await ctx.cluster(globals(cmd));
      await collectBundle({
        client: cluster.client,
        namespace: cluster.namespace,
        instance: flags.instance,
        dir: resolve(ctx.cwd, flags.outputDirectory),
        logSinceSeconds: flags.logSince,
        signal: ctx.signal,
      });
      ctx.term.out(
        `Diagnostics of instance ${cluster.namespace}/${flags.instance} collected into ${resolve(ctx.cwd, flags.outputDirectory)}`,
      );
    });
  return new Command('diagnostics').description('collect diagnostics').addCommand(collect);
}

interface Collection {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly instance: string;
  readonly dir: string;
  readonly logSinceSeconds?: number;
  readonly signal: AbortSignal;
}

async function get<T>(
  c: Collection,
  path: string,
  query?: Record<string, string>,
): Promise<T | undefined> {
  try {
    return await c.client.request<T>({ path, query, signal: c.signal });
  } catch (err) {
    if (err instanceof ApiError && (err.statusCode === 404 || err.statusCode === 403))
      return undefined;
    throw err;
  }
}

async function writeYaml(dir: string, file: string, value: unknown): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, file), kudoYaml(value));
}

const gzipAsync = promisify(gzip);

/** KUDO's `<kind>list.yaml` files: the operator's objects of each kind, empty lists left out. */
async function kudoLists(c: Collection, operatorName: string, dir: string): Promise<void> {
  const query = { labelSelector: `${OPERATOR_LABEL}=${operatorName}` };
  for (const list of KUDO_LISTS) {
    const where = list.namespaced ? `/namespaces/${c.namespace}` : '';
    const found = await get<{ items?: Obj[] }>(c, `${list.path}${where}/${list.kind}s`, query);
    if (found?.items?.length) await writeYaml(dir, `${list.kind}list.yaml`, found);
  }
}

async function podLogs(c: Collection, namespace: string, pods: Obj[], dir: string): Promise<void> {
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    const containers = (
      (pod['spec'] as { containers?: { name: string }[] } | undefined)?.containers ?? []
    ).map((x) => x.name);
    const podDir = join(dir, `pod_${name}`);
    await writeYaml(podDir, `${name}.yaml`, pod);
    for (const container of containers) {
      const query: Record<string, string> = { container };
      if (c.logSinceSeconds !== undefined)
        query['sinceSeconds'] = String(Math.max(1, Math.round(c.logSinceSeconds)));
      try {
        const log = await c.client.request<string>({
          path: `/api/v1/namespaces/${namespace}/pods/${name}/log`,
          query,
          signal: c.signal,
        });
        const text = typeof log === 'string' ? log : JSON.stringify(log);
        await writeFile(join(podDir, `${container}.log.gz`), await gzipAsync(text));
      } catch (err) {
        await writeFile(join(podDir, `${container}.log.err`), `${(err as Error).message}\n`);
      }
    }
  }
}

async function collectBundle(c: Collection): Promise<void> {
  const ns = c.namespace;
  const instance = await get<Instance>(c, `${KUDO}/namespaces/${ns}/instances/${c.instance}`);
  if (!instance) {
    throw new CliError(
      `instance ${c.instance} in namespace ${ns} does not exist in the cluster; check --instance and --namespace`,
    );
  }
  const version = await get<Obj>(c, '/version');
  await writeYaml(c.dir, 'version.yaml', {
    cli: `Planwright ${cliVersion()}`,
    server: version ?? 'unknown',
  });
  await writeYaml(c.dir, 'settings.yaml', {
    namespace: ns,
    instance: c.instance,
    logSinceSeconds: c.logSinceSeconds ?? null,
  });
  await collectInstance(c, c.dir, instance);

  const managerDir = join(c.dir, 'planwright');
  const managerPods = await get<{ items: Obj[] }>(
    c,
    `/api/v1/namespaces/${MANAGER_NAMESPACE}/pods`,
    { labelSelector: MANAGER_SELECTOR },
  );
  await writeYaml(
    managerDir,
    'deployment.yaml',
    (await get<Obj>(c, `/apis/apps/v1/namespaces/${MANAGER_NAMESPACE}/deployments/planwright`)) ??
      'not found (Planwright runs outside the cluster, or elsewhere)',
  );
  await podLogs(c, MANAGER_NAMESPACE, managerPods?.items ?? [], managerDir);
}

/**
 * One Instance below `root`, as KUDO laid it out: its Operator, OperatorVersion and own folder
 * under `operator_<op>/`, then its child Instances the same way below that folder.
 */
async function collectInstance(c: Collection, root: string, instance: Instance): Promise<void> {
  const ns = c.namespace;
  const name = instance.metadata.name ?? '';
  const ovRef = instance.spec?.operatorVersion;
  const ovNamespace = ovRef?.namespace || ns;
  const ov = await get<OperatorVersion>(
    c,
    `${KUDO}/namespaces/${ovNamespace}/operatorversions/${ovRef?.name ?? ''}`,
  );
  const operatorName =
    ov?.spec?.operator?.name ?? instance.metadata.labels?.[OPERATOR_LABEL] ?? 'unknown';
  const operator = await get<Obj>(c, `${KUDO}/namespaces/${ovNamespace}/operators/${operatorName}`);

  const opDir = join(root, `operator_${operatorName}`);
  await writeYaml(opDir, `${operatorName}.yaml`, operator ?? `operator ${operatorName} not found`);
  await writeYaml(
    join(opDir, `operatorversion_${ovRef?.name ?? ''}`),
    `${ovRef?.name ?? 'operatorversion'}.yaml`,
    ov ?? 'not found',
  );
  const instDir = join(opDir, `instance_${name}`);
  await writeYaml(instDir, `${name}.yaml`, instance);
  await writeYaml(instDir, 'plans.yaml', instance.status ?? {});
  if (ov) await writeFile(join(instDir, 'plan-status.txt'), renderPlanStatus(instance, ov, ns));

  const inventory = await collectInventory(c, instance, instDir);
  // KUDO's selection: the operator's pods and objects (its label), not only this Instance's.
  const pods = await get<{ items: Obj[] }>(c, `/api/v1/namespaces/${ns}/pods`, {
    labelSelector: `${OPERATOR_LABEL}=${operatorName}`,
  });
  await podLogs(c, ns, pods?.items ?? [], instDir);
  await kudoLists(c, operatorName, instDir);
  const events = await get<{ items: Obj[] }>(c, `/api/v1/namespaces/${ns}/events`);
  const names = new Set([
    name,
    ...inventory.map((e) => e['name']),
    ...(pods?.items ?? []).map((p) => p.metadata?.name),
  ]);
  await writeYaml(
    instDir,
    'events.yaml',
    (events?.items ?? []).filter((e) =>
      names.has((e['involvedObject'] as { name?: string } | undefined)?.name),
    ),
  );

  const instances = await get<{ items: Instance[] }>(c, `${KUDO}/namespaces/${ns}/instances`);
  const children = (instances?.items ?? []).filter((i) =>
    (i.metadata.ownerReferences ?? []).some((r) => r.uid === instance.metadata.uid),
  );
  for (const child of children) await collectInstance(c, opDir, child);
}

/** The inventory: every object the Instance applied, fetched again; missing ones are drift. */
async function collectInventory(
  c: Collection,
  instance: Instance,
  instDir: string,
): Promise<Array<Record<string, string>>> {
  const mapper = new ResourceMapper(c.client);
  const inventory =
    (instance.status as { inventory?: Array<Record<string, string>> } | undefined)?.inventory ?? [];
  const report: Array<Record<string, string>> = [];
  const objectsDir = join(instDir, 'objects');
  for (const entry of inventory) {
    const where = `${entry['kind']} ${entry['namespace'] ? `${entry['namespace']}/` : ''}${entry['name']}`;
    if (entry['cluster']) {
      report.push({
        object: where,
        cluster: entry['cluster'],
        state: 'in another cluster: not collected',
      });
      continue;
    }
    let live: Obj | undefined;
    try {
      const mapping = await mapper.resolve(
        { group: entry['group'] ?? '', version: entry['version'] ?? '', kind: entry['kind'] ?? '' },
        c.signal,
      );
      live = await get<Obj>(
        c,
        objectPath(
          mapping,
          entry['name'] ?? '',
          mapping.namespaced ? entry['namespace'] : undefined,
        ),
      );
    } catch (err) {
      report.push({ object: where, state: `unreadable: ${(err as Error).message}` });
      continue;
    }
    report.push({
      object: where,
      state: live ? 'present' : 'missing (drift: deleted outside Planwright)',
      ...(entry['task'] ? { task: entry['task'] } : {}),
    });
    if (live) {
      const shown = entry['kind'] === 'Secret' ? redactSecret(live) : live;
      await writeYaml(
        objectsDir,
        `${String(entry['kind']).toLowerCase()}_${entry['name']}.yaml`,
        shown,
      );
    }
  }
  await writeYaml(instDir, 'inventory.yaml', report);
  return inventory;
}
