// The first admission calls after a fresh start of the manager, which the apiserver gives up
// on after the webhook's timeout (5 s here) — and on a loaded machine a fresh manager's first
// OperatorVersion validation used to run into it, waiting for an admission worker process to
// start. Each round: a fresh `planwright start` (as users run it, bench/support), once /readyz
// answers 200 and the webhooks are registered: create an Operator, then an OperatorVersion
// (validated by rendering in the admission worker), then a second OperatorVersion (warm),
// then an Instance with a small list value (mutating + validating webhooks; decoded inline),
// then — once the admission worker has had BENCH_IDLE_S seconds without jobs, past its idle
// time — an Instance with a 20,000-key map value (decoded in the admission worker: a cold
// start where it exits when idle), each timed end to end through the apiserver. BENCH_LOAD
// busy processes spin while the rounds run (a loaded node).
//
// Run: node --import ./scripts/register-ts.mjs bench/first-admission.ts
//   BENCH_ROUNDS=3 BENCH_LOAD=0 (busy processes) BENCH_IDLE_S=7
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/index.ts';
import { startLocalCluster } from '../src/localcluster/index.ts';
import { freeLoopbackPort } from '../src/localcluster/ports.ts';
import { configMapTemplates } from './support/bench-operator.ts';
import { startPlanwrightProcess } from './support/planwright-process.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const LOAD = Number(process.env['BENCH_LOAD'] ?? 0);
const IDLE_S = Number(process.env['BENCH_IDLE_S'] ?? 7);
const NS = 'default';
const progress = (line: string): void => console.error(line);

const cluster = await startLocalCluster({ mode: 'bare', onProgress: progress });
const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfigPath);
const admin = new KubeClient(kc);

/** Milliseconds of one POST through the apiserver (and so through the webhooks), or why it failed. */
async function timed(plural: string, body: object): Promise<string> {
  const started = performance.now();
  try {
    await admin.request({
      method: 'POST',
      path: `/apis/kudo.dev/v1beta1/namespaces/${NS}/${plural}`,
      body,
      timeoutMs: 30_000,
    });
    return `${(performance.now() - started).toFixed(0)} ms`;
  } catch (err) {
    return `failed after ${(performance.now() - started).toFixed(0)} ms: ${String(err).slice(0, 120)}`;
  }
}

function operatorVersion(name: string, operator: string): object {
  const templates = configMapTemplates();
  return {
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'OperatorVersion',
    metadata: { name },
    spec: {
      operator: { name: operator, kind: 'Operator' },
      version: name.replace(/^.*-/, ''),
      parameters: [
        { name: 'V', default: 'x' },
        { name: 'LIST', 'value-type': 'array', default: '[a]' },
        { name: 'MAP', 'value-type': 'map', default: '{}' },
      ],
      templates,
      tasks: [{ name: 'all', kind: 'Apply', spec: { resources: Object.keys(templates) } }],
      plans: {
        deploy: {
          strategy: 'serial',
          phases: [{ name: 'p', strategy: 'serial', steps: [{ name: 's', tasks: ['all'] }] }],
        },
      },
    },
  };
}

/** A valid value far past the inline budget (the hostile test's 20,000 keys, ~240 KB). */
const BIG_MAP = Array.from({ length: 20_000 }, (_, i) => `key${i}: v${i}`).join('\n');

const busy: ChildProcess[] = [];
for (let i = 0; i < LOAD; i++) {
  busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}
const rows: string[][] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const operator = `first${round}`;
    const manager = await startPlanwrightProcess({
      kubeconfig: cluster.kubeconfigPath,
      webhookPort: await freeLoopbackPort(),
    });
    try {
      const op = await timed('operators', {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Operator',
        metadata: { name: operator },
        spec: { description: 'first admission' },
      });
      const ov1 = await timed('operatorversions', operatorVersion(`${operator}-1.0`, operator));
      const ov2 = await timed('operatorversions', operatorVersion(`${operator}-2.0`, operator));
      const instance = await timed('instances', {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name: `${operator}-i`, labels: { 'kudo.dev/operator': operator } },
        spec: {
          operatorVersion: { name: `${operator}-1.0` },
          parameters: { LIST: '[b, c]' },
        },
      });
      await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
      const big = await timed('instances', {
        apiVersion: 'kudo.dev/v1beta1',
        kind: 'Instance',
        metadata: { name: `${operator}-big`, labels: { 'kudo.dev/operator': operator } },
        spec: {
          operatorVersion: { name: `${operator}-1.0` },
          parameters: { MAP: BIG_MAP },
        },
      });
      rows.push([String(round), op, ov1, ov2, instance, big]);
      progress(`round ${round}: ${rows[rows.length - 1]?.join(' | ')}`);
    } finally {
      await manager.stop();
    }
  }
} finally {
  for (const b of busy) b.kill('SIGKILL');
  admin.close();
  await cluster.stop();
}
console.log(
  `First admission calls after a fresh start (${LOAD} busy processes on ${availableParallelism()} CPUs):`,
);
console.log(
  `| round | Operator | first OperatorVersion | second OperatorVersion | Instance | Instance, 20,000-key map, ${IDLE_S} s later |`,
);
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
