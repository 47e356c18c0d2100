// What one request of each kind the engine makes costs kube-apiserver and etcd (CPU from /proc)
// and how many bytes it carries, on the bare local control plane, with the bodies Planwright
// really sends: they are taken from a real Instance after its deploy plan (the bench operator's
// 3 ConfigMaps), its applied ConfigMap and its PlanStarted Event, recorded by `planwright start`
// (dist build) at the start. Then a webhook-only replica serves the admission webhooks (it
// runs leader election against a Lease held by someone else, so it reconciles nothing), and
// each request shape is sent BENCH_N (1,000) times, 16 in flight, an Instance watch open (as
// the manager and the bench client have one), shapes interleaved over BENCH_ROUNDS rounds
// (order reversed every other round). Alternatives to what Planwright does sit next to it:
//  * ConfigMaps: SSA apply of a new object vs POST; plain 3-key body vs Planwright's labels,
//    annotations and owner reference; SSA of an unchanged object;
//  * Instance status: PUT /status of the full object (Planwright) vs a JSON merge patch of
//    status vs SSA on /status, and the same PUT on a schemaless copy of the CRD (what our
//    schema's validation costs);
//  * Instance create through both admission webhooks vs without them;
//  * the harness: a request of a user the audit policy logs (as bench/vs-kudo logs the
//    managers) vs one it does not.
// Bytes: the request body, the answer, and the stored object as a GET returns it (JSON, with
// managedFields). The bench client's own CPU per request is shown apart.
// Run (root not needed): npm run build && node --import ./scripts/register-ts.mjs bench/apiserver-cost.ts
//   BENCH_N=1000 BENCH_ROUNDS=2 BENCH_SHAPES=<comma-separated substrings of shape names>
//   BENCH_PROFILE_DIR=<dir>: a kube-apiserver CPU profile of each shape's first BENCH_PROFILE_S
//   (3) seconds in round 1, with its `go tool pprof -top` next to it
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type RequestOptions } from '../src/kube/index.ts';
import { stripForApply } from '../src/kube/apply.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { sleep } from '../src/runtime/time.ts';
import { pool } from './pool.ts';
import { auditLogArgs } from './support/audit.ts';
import {
  configMapTemplates,
  createBenchOperator,
  createInstances,
  OPERATOR,
  OPERATOR_VERSION,
  waitForPlans,
} from './support/bench-operator.ts';
import { startPlanwrightProcess } from './support/planwright-process.ts';
import { holdLeaderLease } from './support/leader-lease.ts';
import { freeLoopbackPort } from '../src/localcluster/ports.ts';
import { cpuSecondsOf } from './support/process-stats.ts';
import { apiServerCpuProfile, pprofTop } from './support/pprof.ts';
import { formatTable } from './support/table.ts';
import { instanceObject } from '../test/support/kudo-objects.ts';

const N = Number(process.env['BENCH_N'] ?? process.argv[2] ?? 1_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const FILTER = process.env['BENCH_SHAPES']?.split(',').filter((s) => s !== '');
const IN_FLIGHT = 16;
const PROFILE_DIR = process.env['BENCH_PROFILE_DIR'];
const PROFILE_S = Number(process.env['BENCH_PROFILE_S'] ?? 3);
const NS = 'default';
const AUDITED_USER = 'bench-audited';
const COPY_GROUP = 'costbench.planwright.dev';
const progress = (line: string): void => console.error(line);

type Json = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);

/** Drops what the server owns from a stored object (a body as a client would send it). */
function asSent(obj: Json): Json {
  const meta = { ...(obj['metadata'] as Json) };
  for (const k of ['managedFields', 'resourceVersion', 'uid', 'creationTimestamp', 'generation'])
    delete meta[k];
  return { ...obj, metadata: meta };
}

function bytes(v: unknown): number {
  return v === undefined ? 0 : Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v));
}

interface Shape {
  readonly name: string;
  /** Whether the admission webhooks must be registered (default: as in production, yes). */
  readonly webhooks?: boolean;
  /** The bench's audited user sends it (default: the unaudited admin). */
  readonly audited?: boolean;
  /** Unmeasured work before the timed requests (objects the requests write to). */
  prepare?(prefix: string): Promise<void>;
  request(prefix: string, i: number): RequestOptions;
  /** The GET of what the request stored (for its stored size). */
  stored?(prefix: string): RequestOptions;
}

interface Sample {
  apiMs: number;
  etcdMs: number;
  clientMs: number;
  wallMs: number;
  reqBytes: number;
  respBytes: number;
  storedBytes: number;
}

const workDir = await mkdtemp(join(tmpdir(), 'bench-apiserver-cost-'));
const audit = await auditLogArgs(workDir, [AUDITED_USER]);
const cluster = await startLocalCluster({
  profiling: true,
  apiServerExtraArgs: audit.args,
  onProgress: progress,
});
const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfigPath);
const admin = new KubeClient(kc);
const auditedUser = await cluster.createUser(AUDITED_USER, ['system:masters']);
const akc = new KubeConfig();
akc.loadFromFile(auditedUser.kubeconfigPath);
const audited = new KubeClient(akc);
const watching = new AbortController();
let replica: Awaited<ReturnType<typeof startPlanwrightProcess>> | undefined;
try {
  // 1. A real Instance after its deploy plan, with what Planwright applied and recorded.
  progress('recording a real deploy plan with planwright start');
  const manager = await startPlanwrightProcess({
    kubeconfig: cluster.kubeconfigPath,
    webhookPort: await freeLoopbackPort(),
  });
  let sampleInstance: Json;
  let sampleConfigMap: Json;
  let sampleEvent: Json;
  try {
    await createBenchOperator(admin, NS, configMapTemplates());
    await sleep(2_000);
    await createInstances(admin, NS, 1, { prefix: 'sample' });
    await waitForPlans(admin, NS, 1);
    await sleep(1_000);
    sampleInstance = await admin.request<Json>({
      path: `/apis/kudo.dev/v1beta1/namespaces/${NS}/instances/sample0`,
    });
    sampleConfigMap = await admin.request<Json>({
      path: `/api/v1/namespaces/${NS}/configmaps/sample0-0`,
    });
    const events = await admin.request<{ items: Json[] }>({
      path: `/api/v1/namespaces/${NS}/events`,
      query: { fieldSelector: 'involvedObject.name=sample0,reason=PlanStarted' },
    });
    const first = events.items[0];
    if (!first) throw new Error('the sample Instance recorded no PlanStarted Event');
    sampleEvent = first;
  } finally {
    await manager.stop();
  }
  if (PROFILE_DIR)
    await writeFile(
      join(PROFILE_DIR, 'samples.json'),
      JSON.stringify({ sampleInstance, sampleConfigMap, sampleEvent }, null, 2),
    );
  // 2. A webhook-only replica: the leader Lease is someone else's for the whole run.
  await holdLeaderLease(admin, NS);
  replica = await startPlanwrightProcess({
    kubeconfig: cluster.kubeconfigPath,
    webhookPort: await freeLoopbackPort(),
    leaderElection: true,
  });
  const webhookConfigs: Array<{ path: string; body: Json }> = [];
  for (const [kind, name] of [
    ['mutatingwebhookconfigurations', 'planwright-instances'],
    ['validatingwebhookconfigurations', 'planwright-validation'],
  ] as const) {
    const path = `/apis/admissionregistration.k8s.io/v1/${kind}`;
    const live = await admin.request<Json>({ path: `${path}/${name}` });
    webhookConfigs.push({ path, body: asSent(live) });
  }
  let webhooksOn = true;
  const setWebhooks = async (on: boolean): Promise<void> => {
    if (on === webhooksOn) return;
    for (const c of webhookConfigs) {
      const name = (c.body['metadata'] as Json)['name'] as string;
      if (on) await admin.request({ method: 'POST', path: c.path, body: c.body });
      else await admin.request({ method: 'DELETE', path: `${c.path}/${name}` });
    }
    webhooksOn = on;
    // The apiserver's webhook configuration informer picks the change up.
    await sleep(3_000);
  };

  // Copies of the Instance CRD in groups of their own, each with one change to the schema, so
  // the status PUT can be measured on each side by side (what each part of the schema costs).
  // The copy groups get no webhooks (the status subresource has none either) and each gets a
  // watch like the real group, so the watch fan-out is the same for all.
  const crd = await admin.request<Json>({
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/instances.kudo.dev',
  });
  const liveSchema = (((crd['spec'] as Json)['versions'] as Json[])[0]?.['schema'] as Json)[
    'openAPIV3Schema'
  ] as Json;
  const walk = (node: unknown, f: (o: Json) => void): void => {
    if (Array.isArray(node)) for (const x of node) walk(x, f);
    else if (node !== null && typeof node === 'object') {
      f(node as Json);
      for (const v of Object.values(node as Json)) walk(v, f);
    }
  };
  const props = (o: Json, ...path: string[]): Json =>
    path.reduce((n, k) => (n['properties'] as Json)[k] as Json, o);
  const variants: Record<string, (schema: Json) => Json> = {
    // The schema as installed: the control for the group change and the missing webhooks.
    copy: (s) => s,
    'no-cel': (s) => {
      delete props(s, 'spec')['x-kubernetes-validations'];
      return s;
    },
    'no-formats': (s) => {
      walk(s, (o) => {
        if (typeof o['format'] === 'string') delete o['format'];
        delete o['nullable'];
      });
      return s;
    },
    'status-no-formats': (s) => {
      walk(props(s, 'status'), (o) => {
        if (typeof o['format'] === 'string' && o['format'] !== 'int64') delete o['format'];
      });
      return s;
    },
    'planstatus-untyped': (s) => {
      props(s, 'status', 'planStatus')['additionalProperties'] = {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      };
      return s;
    },
    'no-listmap': (s) => {
      const c = props(s, 'status', 'conditions');
      delete c['x-kubernetes-list-type'];
      delete c['x-kubernetes-list-map-keys'];
      return s;
    },
    'no-cel-formats-listmap': (s) =>
      variants['no-listmap']?.(variants['no-formats']?.(variants['no-cel']?.(s) ?? s) ?? s) ?? s,
    'status-untyped': (s) => {
      (s['properties'] as Json)['status'] = {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      };
      return s;
    },
    schemaless: () => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
  };
  const variantGroup = (v: string): string => `${v}.${COPY_GROUP}`;
  for (const [v, edit] of Object.entries(variants)) {
    const copy = asSent(clone(crd));
    (copy['metadata'] as Json)['name'] = `instances.${variantGroup(v)}`;
    delete (copy['metadata'] as Json)['annotations'];
    delete copy['status'];
    const copySpec = copy['spec'] as Json;
    copySpec['group'] = variantGroup(v);
    copySpec['conversion'] = { strategy: 'None' };
    copySpec['versions'] = (copySpec['versions'] as Json[]).map((ver) => ({
      ...ver,
      schema: { openAPIV3Schema: edit(clone(liveSchema)) },
    }));
    await admin.request({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: copy,
    });
  }

  await sleep(3_000);
  for (const group of ['kudo.dev', ...Object.keys(variants).map(variantGroup)])
    void admin
      .watch({
        path: `/apis/${group}/v1beta1/namespaces/${NS}/instances`,
        query: { allowWatchBookmarks: true },
        signal: watching.signal,
        inactivityMs: 3_600_000,
        onEvent: () => undefined,
      })
      .catch((err: unknown) => progress(`instance watch ended: ${String(err)}`));

  // Bodies as Planwright sends them, renamed per request.
  const sampleStatus = sampleInstance['status'] as Json;
  const decoratedCm = stripForApply(sampleConfigMap) as Json;
  const cmPath = `/api/v1/namespaces/${NS}/configmaps`;
  const plainCm = (name: string): Json => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS },
    data: { a: 'x', b: 'y', c: 'z' },
  });
  const decorated = (name: string): Json => {
    const o = clone(decoratedCm);
    (o['metadata'] as Json)['name'] = name;
    return o;
  };
  const ssa = (name: string, body: Json): RequestOptions => ({
    method: 'PATCH',
    path: `${cmPath}/${name}`,
    query: { fieldManager: 'planwright', force: true },
    contentType: 'application/apply-patch+yaml',
    body,
  });
  const instancesPath = (group = 'kudo.dev'): string =>
    `/apis/${group}/v1beta1/namespaces/${NS}/instances`;
  const newInstance = (name: string, group = 'kudo.dev'): Json => ({
    ...(instanceObject(name, OPERATOR_VERSION, {
      labels: { 'kudo.dev/operator': OPERATOR },
    }) as unknown as Json),
    apiVersion: `${group}/v1beta1`,
  });
  // The Instances a status shape writes to, created (through the webhooks) before timing.
  const stored = new Map<string, Json>();
  const prepareInstances = async (prefix: string, group = 'kudo.dev'): Promise<void> => {
    await pool(N, IN_FLIGHT, async (i) => {
      const created = await admin.request<Json>({
        method: 'POST',
        path: instancesPath(group),
        body: newInstance(`${prefix}${i}`, group),
      });
      stored.set(`${prefix}${i}`, created);
    });
  };
  // The real status with the sample's names replaced (the inventory names its objects).
  const statusFor = (name: string): Json =>
    JSON.parse(JSON.stringify(sampleStatus).replaceAll('sample0', name)) as Json;
  const putStatus = (prefix: string, i: number, group = 'kudo.dev'): RequestOptions => {
    const name = `${prefix}${i}`;
    const live = stored.get(name) as Json;
    stored.delete(name);
    // As the controller sends it: its cache holds Instances without managedFields.
    const meta = { ...(live['metadata'] as Json) };
    delete meta['managedFields'];
    return {
      method: 'PUT',
      path: `${instancesPath(group)}/${name}/status`,
      body: { ...live, metadata: meta, status: statusFor(name) },
    };
  };
  const eventBody = (name: string): Json => {
    const e = asSent(clone(sampleEvent));
    (e['metadata'] as Json)['name'] = name;
    const now = new Date().toISOString();
    e['firstTimestamp'] = now;
    e['lastTimestamp'] = now;
    return e;
  };

  const allShapes: Shape[] = [
    {
      name: 'ConfigMap 3 keys: POST',
      request: (p, i) => ({ method: 'POST', path: cmPath, body: plainCm(`${p}${i}`) }),
      stored: (p) => ({ path: `${cmPath}/${p}0` }),
    },
    {
      name: 'ConfigMap 3 keys: SSA new',
      request: (p, i) => ssa(`${p}${i}`, plainCm(`${p}${i}`)),
      stored: (p) => ({ path: `${cmPath}/${p}0` }),
    },
    {
      name: "ConfigMap Planwright's: POST",
      request: (p, i) => ({ method: 'POST', path: cmPath, body: decorated(`${p}${i}`) }),
      stored: (p) => ({ path: `${cmPath}/${p}0` }),
    },
    {
      name: "ConfigMap Planwright's: SSA new (Planwright)",
      request: (p, i) => ssa(`${p}${i}`, decorated(`${p}${i}`)),
      stored: (p) => ({ path: `${cmPath}/${p}0` }),
    },
    {
      name: "ConfigMap Planwright's: SSA new, audited user",
      audited: true,
      request: (p, i) => ssa(`${p}${i}`, decorated(`${p}${i}`)),
    },
    {
      name: "ConfigMap Planwright's: SSA unchanged",
      prepare: (p) =>
        pool(N, IN_FLIGHT, (i) => admin.request(ssa(`${p}${i}`, decorated(`${p}${i}`)))),
      request: (p, i) => ssa(`${p}${i}`, decorated(`${p}${i}`)),
    },
    {
      name: 'ConfigMap: GET',
      prepare: (p) =>
        pool(N, IN_FLIGHT, (i) =>
          admin.request({ method: 'POST', path: cmPath, body: decorated(`${p}${i}`) }),
        ),
      request: (p, i) => ({ path: `${cmPath}/${p}${i}` }),
    },
    {
      name: 'Instance: POST, 2 webhooks (Planwright)',
      request: (p, i) => ({ method: 'POST', path: instancesPath(), body: newInstance(`${p}${i}`) }),
      stored: (p) => ({ path: `${instancesPath()}/${p}0` }),
    },
    {
      name: 'Instance: POST, no webhooks',
      webhooks: false,
      request: (p, i) => ({ method: 'POST', path: instancesPath(), body: newInstance(`${p}${i}`) }),
    },
    {
      name: 'Instance status: PUT full object (Planwright)',
      prepare: (p) => prepareInstances(p),
      request: (p, i) => putStatus(p, i),
      stored: (p) => ({ path: `${instancesPath()}/${p}0` }),
    },
    {
      name: 'Instance status: merge patch',
      prepare: (p) => prepareInstances(p),
      request: (p, i) => {
        const name = `${p}${i}`;
        const live = stored.get(name) as Json;
        stored.delete(name);
        const rv = (live['metadata'] as Json)['resourceVersion'];
        return {
          method: 'PATCH',
          path: `${instancesPath()}/${name}/status`,
          contentType: 'application/merge-patch+json',
          body: { metadata: { resourceVersion: rv }, status: statusFor(name) },
        };
      },
    },
    {
      name: 'Instance status: SSA',
      prepare: (p) => prepareInstances(p),
      request: (p, i) => {
        const name = `${p}${i}`;
        stored.delete(name);
        return {
          method: 'PATCH',
          path: `${instancesPath()}/${name}/status`,
          query: { fieldManager: 'planwright', force: true },
          contentType: 'application/apply-patch+yaml',
          body: {
            apiVersion: 'kudo.dev/v1beta1',
            kind: 'Instance',
            metadata: { name, namespace: NS },
            status: statusFor(name),
          },
        };
      },
    },
    ...Object.keys(variants).map((v): Shape => ({
      name: `Instance status: PUT, CRD ${v}`,
      prepare: (p) => prepareInstances(p, variantGroup(v)),
      request: (p, i) => putStatus(p, i, variantGroup(v)),
    })),
    {
      name: "Event: POST (Planwright's)",
      request: (p, i) => ({
        method: 'POST',
        path: `/api/v1/namespaces/${NS}/events`,
        body: eventBody(`${p}${i}`),
      }),
      stored: (p) => ({ path: `/api/v1/namespaces/${NS}/events/${p}0` }),
    },
  ];
  const shapes = allShapes.filter((s) => !FILTER || FILTER.some((f) => s.name.includes(f)));

  const apiPid = cluster.pids.kubeApiServer;
  const etcdPid = cluster.pids.etcd;
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? shapes : [...shapes].reverse();
    for (const shape of order) {
      const s = shapes.indexOf(shape);
      const prefix = `r${round}-s${s}-`;
      await setWebhooks(shape.webhooks ?? true);
      await shape.prepare?.(prefix);
      await sleep(500);
      const client = shape.audited ? audited : admin;
      let reqBytes = 0;
      let respBytes = 0;
      const api0 = cpuSecondsOf(apiPid);
      const etcd0 = cpuSecondsOf(etcdPid);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const profile =
        PROFILE_DIR && round === 0
          ? apiServerCpuProfile(kc, PROFILE_S, join(PROFILE_DIR, `apiserver-s${s}.pprof`))
          : undefined;
      await pool(N, IN_FLIGHT, async (i) => {
        const req = shape.request(prefix, i);
        reqBytes += bytes(req.body);
        const answer = await client.request<unknown>(req);
        respBytes += bytes(answer);
      });
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const sample: Sample = {
        apiMs: ((cpuSecondsOf(apiPid) - api0) * 1000) / N,
        etcdMs: ((cpuSecondsOf(etcdPid) - etcd0) * 1000) / N,
        clientMs: (cpu.user + cpu.system) / 1000 / N,
        wallMs: wall / N,
        reqBytes: reqBytes / N,
        respBytes: respBytes / N,
        storedBytes: shape.stored ? bytes(await admin.request(shape.stored(prefix))) : 0,
      };
      if (profile) {
        const path = await profile;
        await writeFile(
          `${path}.txt`,
          `${shape.name}\n${await pprofTop(cluster.binaries.kubeApiServer, path)}`,
        );
      }
      samples.set(shape.name, [...(samples.get(shape.name) ?? []), sample]);
      progress(
        `round ${round + 1} ${shape.name.padEnd(48)} apiserver ${sample.apiMs.toFixed(2)} ms, etcd ${sample.etcdMs.toFixed(2)} ms (load ${(loadavg()[0] ?? 0).toFixed(2)})`,
      );
    }
  }
  const fmt = (v: number[], digits = 2): string => v.map((x) => x.toFixed(digits)).join(' / ');
  console.log(
    `\nkube-apiserver and etcd CPU per request (${N} requests per shape and round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds; load ${(loadavg()[0] ?? 0).toFixed(2)} at the end):`,
  );
  console.log(
    formatTable(
      [
        'request',
        'apiserver ms',
        'etcd ms',
        'client ms',
        'wall ms',
        'sent B',
        'answer B',
        'stored B',
      ],
      shapes.map((shape) => {
        const s = samples.get(shape.name) ?? [];
        return [
          shape.name,
          fmt(s.map((x) => x.apiMs)),
          fmt(s.map((x) => x.etcdMs)),
          fmt(s.map((x) => x.clientMs)),
          fmt(s.map((x) => x.wallMs)),
          (s[0]?.reqBytes ?? 0).toFixed(0),
          (s[0]?.respBytes ?? 0).toFixed(0),
          s[0]?.storedBytes ? s[0].storedBytes.toFixed(0) : '',
        ];
      }),
    ),
  );
  console.log(
    `sample Instance after its deploy plan: ${bytes(sampleInstance)} B as stored (status ${bytes(sampleStatus)} B, managedFields ${bytes((sampleInstance['metadata'] as Json)['managedFields'])} B); ` +
      `ConfigMap ${bytes(sampleConfigMap)} B (managedFields ${bytes((sampleConfigMap['metadata'] as Json)['managedFields'])} B); Event ${bytes(sampleEvent)} B`,
  );
} finally {
  watching.abort();
  await replica?.stop();
  audited.close();
  admin.close();
  await cluster.stop();
  await rm(workDir, { recursive: true, force: true });
}
