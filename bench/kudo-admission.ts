/**
 * Instance admission latency with a realistic OperatorVersion (30 parameters of every
 * value-type, enums, triggers, an immutable one):
 *
 * 1. In process: the `/mutate/instances` handler called directly (OperatorVersion from a
 *    warm cache, parameter schema compiled once), p50/p99 in µs for CREATE, an UPDATE that
 *    schedules a plan, and an UPDATE refused because another plan runs.
 * 2. End to end: PATCH of an Instance through a local kube-apiserver that calls the webhook
 *    over TLS, against the same PATCH in a namespace the webhook does not select.
 *
 *   node --import ./scripts/register-ts.mjs bench/kudo-admission.ts
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Level, pino } from 'pino';
import { Registry } from 'prom-client';
import { KubeClient } from '../src/kube/index.ts';
import {
  CachedOperatorVersionSource,
  instanceMutator,
  LiveOperatorVersionSource,
} from '../src/kudo/admission/index.ts';
import type { Instance, OperatorVersion, Parameter } from '../src/kudo/api/index.ts';
import { ParameterValidator } from '../src/kudo/params/index.ts';
import { ensureControlPlaneBinaries, startLocalCluster } from '../src/localcluster/index.ts';
import {
  StaticCertificateSource,
  WebhookServer,
  type AdmissionRequest,
} from '../src/server/index.ts';
import * as k8s from '@kubernetes/client-node';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ITERATIONS = Number(process.env['BENCH_ITERATIONS'] ?? 20_000);
const E2E_REQUESTS = Number(process.env['BENCH_E2E_REQUESTS'] ?? 300);
const NS = 'bench';

function parameters(): Parameter[] {
  const out: Parameter[] = [];
  const types = ['string', 'integer', 'number', 'boolean', 'array', 'map'] as const;
  const defaults = {
    string: 'x',
    integer: '3',
    number: '0.5',
    boolean: 'true',
    array: '[a, b]',
    map: '{a: 1}',
  };
  for (let i = 0; i < 30; i++) {
    const type = types[i % types.length] ?? 'string';
    out.push({
      name: `P${i}`,
      'value-type': type,
      default: defaults[type],
      ...(type === 'string' && i % 12 === 0 ? { enum: ['x', 'y', 'z'] } : {}),
      ...(i % 7 === 0 ? { trigger: 'deploy' } : {}),
      ...(i === 29 ? { immutable: true } : {}),
    });
  }
  return out;
}

const ov: OperatorVersion = {
  apiVersion: 'kudo.dev/v1beta1',
  kind: 'OperatorVersion',
  metadata: { name: 'app-1', namespace: NS, uid: 'ov-uid', resourceVersion: '1' },
  spec: {
    operator: { name: 'app', kind: 'Operator' },
    version: '1',
    parameters: parameters(),
    plans: { deploy: {}, update: {}, backup: {} },
  },
};

const values: Record<string, string> = {};
for (let i = 0; i < 15; i++) values[`P${i}`] = ov.spec?.parameters?.[i]?.default ?? 'x';

function instance(extra: Partial<Instance['spec']>, status?: Instance['status']): Instance {
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name: 'app', namespace: NS },
    spec: { operatorVersion: { name: 'app-1' }, parameters: { ...values }, ...extra },
    ...(status ? { status } : {}),
  };
}

function request(
  operation: 'CREATE' | 'UPDATE',
  object: Instance,
  oldObject?: Instance,
): AdmissionRequest {
  return {
    uid: randomUUID(),
    kind: { group: 'kudo.dev', version: 'v1beta1', kind: 'Instance' },
    resource: { group: 'kudo.dev', version: 'v1beta1', resource: 'instances' },
    name: 'app',
    namespace: NS,
    operation,
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: object as unknown as AdmissionRequest['object'],
    oldObject: (oldObject ?? null) as unknown as AdmissionRequest['oldObject'],
    dryRun: false,
  };
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

async function inProcess(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const handler = instanceMutator({
    operatorVersions: new CachedOperatorVersionSource({
      cache: new Map([[`${NS}/app-1`, ov]]),
      live: { get: () => Promise.reject(new Error('bench: no live GET expected')) },
    }),
    validator: new ParameterValidator({ maxCachedOperatorVersions: 16 }),
    controllerUsers: new Set(),
  });
  const running = { planStatus: { deploy: { name: 'deploy', uid: 'u0', status: 'IN_PROGRESS' } } };
  const idle = instance(
    { planExecution: { planName: 'deploy', uid: 'u0' } },
    { planStatus: { deploy: { name: 'deploy', uid: 'u0', status: 'COMPLETE' } } },
  );
  const busy = instance({ planExecution: { planName: 'deploy', uid: 'u0' } }, running);
  const changed = (base: Instance): Instance => ({
    ...base,
    spec: { ...base.spec, parameters: { ...values, P1: '5' } },
  });
  const scenarios: Array<[string, AdmissionRequest, string]> = [
    ['CREATE (15 of 30 parameters set)', request('CREATE', instance({})), 'patch'],
    ['UPDATE parameter change → plan', request('UPDATE', changed(idle), idle), 'patch'],
    ['UPDATE refused (plan running)', request('UPDATE', changed(busy), busy), 'deny'],
  ];
  const context = {
    signal: new AbortController().signal,
    dryRun: false,
    logger,
    isLevelEnabled: (level: Level): boolean => logger.isLevelEnabled(level),
  };
  console.log(`in process, ${ITERATIONS} calls each (after 2,000 warm-up):`);
  for (const [name, req, expected] of scenarios) {
    for (let i = 0; i < 2_000; i++) await handler(req, context);
    const samples: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      const start = process.hrtime.bigint();
      const result = await handler(req, context);
      samples.push(Number(process.hrtime.bigint() - start) / 1_000);
      if (result.kind !== expected)
        throw new Error(`${name}: expected ${expected}, got ${result.kind}`);
    }
    const { p50, p99 } = percentiles(samples);
    console.log(`  ${name.padEnd(36)} p50 ${p50.toFixed(1)} µs   p99 ${p99.toFixed(1)} µs`);
  }
}

async function endToEnd(): Promise<void> {
  const binaries = await ensureControlPlaneBinaries({ onProgress: (l) => console.error(l) });
  const cluster = await startLocalCluster({ binaries });
  const stop = new AbortController();
  let server: WebhookServer | undefined;
  try {
    // Asynchronous on purpose: the webhook answering the apiserver lives in this process.
    const kubectl = (args: string[], input?: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const child = execFile(
          binaries.kubectl,
          ['--kubeconfig', cluster.kubeconfigPath, ...args],
          (err, stdout, stderr) =>
            err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
        );
        child.stdin?.end(input ?? '');
      });
    await kubectl(['apply', '--server-side', '-f', join(ROOT, 'manifests/crds')]);
    await kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/instances.kudo.dev',
      'crd/operatorversions.kudo.dev',
    ]);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    const client = new KubeClient(kc);
    const loopback = StaticCertificateSource.forLoopback('bench-webhook');
    server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      tls: loopback.source,
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
    });
    const cached = new Map<string, OperatorVersion>();
    server.registerMutating(
      'instances',
      instanceMutator({
        operatorVersions: new CachedOperatorVersionSource({
          cache: cached,
          live: new LiveOperatorVersionSource({ client, timeoutMs: 2_000 }),
        }),
        validator: new ParameterValidator({ maxCachedOperatorVersions: 16 }),
        controllerUsers: new Set(),
      }),
    );
    const { port } = await server.listen(stop.signal);
    for (const ns of [NS, `${NS}-plain`]) {
      await kubectl(['create', 'namespace', ns]);
      await kubectl(
        ['create', '-n', ns, '-f', '-'],
        JSON.stringify({ ...ov, metadata: { name: 'app-1' } }),
      );
    }
    const stored = JSON.parse(
      await kubectl(['get', 'operatorversion', 'app-1', '-n', NS, '-o', 'json']),
    ) as OperatorVersion;
    cached.set(`${NS}/app-1`, stored); // a warm shared cache
    const manifest = await kubectl([
      'create',
      '--dry-run=client',
      '-o',
      'json',
      '-f',
      join(ROOT, 'manifests/webhook/mutating-webhook.yaml'),
    ]);
    const config = JSON.parse(manifest) as k8s.V1MutatingWebhookConfiguration;
    for (const webhook of config.webhooks ?? []) {
      webhook.clientConfig = {
        url: `https://127.0.0.1:${port}/mutate/instances`,
        caBundle: Buffer.from(loopback.caPem).toString('base64'),
      };
      webhook.namespaceSelector = { matchLabels: { 'kubernetes.io/metadata.name': NS } };
    }
    await kubectl(['create', '-f', '-'], JSON.stringify(config));
    const body = (ns: string): string =>
      JSON.stringify(instance({}, undefined)).replace(`"namespace":"${NS}"`, `"namespace":"${ns}"`);
    for (const ns of [NS, `${NS}-plain`]) {
      for (;;) {
        await kubectl(['apply', '-f', '-'], body(ns));
        const pe = await kubectl([
          'get',
          'instance',
          'app',
          '-n',
          ns,
          '-o',
          'jsonpath={.spec.planExecution.planName}',
        ]);
        if (ns !== NS || pe === 'deploy') break; // the registration takes a moment to be active
        await kubectl(['delete', 'instance', 'app', '-n', ns]);
      }
    }
    console.log(
      `end to end, ${E2E_REQUESTS} sequential merge PATCHes of spec.parameters.P7 (trigger deploy: re-triggers the running plan):`,
    );
    for (const ns of [NS, `${NS}-plain`]) {
      const samples: number[] = [];
      for (let i = 0; i < E2E_REQUESTS + 30; i++) {
        const start = process.hrtime.bigint();
        await client.request({
          method: 'PATCH',
          path: `/apis/kudo.dev/v1beta1/namespaces/${ns}/instances/app`,
          contentType: 'application/merge-patch+json',
          body: { spec: { parameters: { P7: String(i) } } },
        });
        if (i >= 30) samples.push(Number(process.hrtime.bigint() - start) / 1_000);
      }
      const { p50, p99 } = percentiles(samples);
      const label = ns === NS ? 'with the Instance webhook' : 'without a webhook (baseline)';
      console.log(`  ${label.padEnd(36)} p50 ${p50.toFixed(0)} µs   p99 ${p99.toFixed(0)} µs`);
    }
    client.close();
  } finally {
    stop.abort();
    await server?.stop();
    await cluster.stop();
  }
}

await inProcess();
if (process.env['BENCH_SKIP_E2E'] !== '1') await endToEnd();
