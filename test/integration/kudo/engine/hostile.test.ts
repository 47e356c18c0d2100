// One Instance must never take the operator down. Planwright runs as users start it
// (`planwright start --install`, the built CLI in a child process) against the shared control
// plane, its webhooks registered for this test's namespace, with a shorter render deadline
// and smaller render workers set by its flags. Hostile OperatorVersions (a backtracking regex check, a template that loops, one
// that eats memory, one with a huge output, one that repeats a string into hundreds of MB,
// one nested 10,000 deep) and hostile parameter
// values (deep YAML, alias cycles and bombs, a number for a string, a value over the limit)
// are thrown at it while bystander Instances run their plans and a probe calls the webhook
// 40 times a second. Asserted: every hostile Instance ends FATAL_ERROR or is denied, with a
// message naming the template or field and the limit; every bystander completes; the process
// never exits or restarts; its memory (with its render workers) stays under a stated bound.
// Measured and printed (not asserted: timing belongs to reports): webhook p50/p99/max and how
// long the bystanders took.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { Instance, Parameter } from '../../../../src/kudo/api/types.ts';
import {
  createTestNamespace,
  kubeConfig,
  testCluster,
  uniqueName,
} from '../../../support/cluster.ts';
import { billionLaughs, deepSequence } from '../../../support/hostile-yaml.ts';
import { installKudoCrds } from '../../../support/kudo.ts';
import { waitForLaneGate } from '../../../support/lane-gate.ts';
import { waitFor } from '../../../support/wait.ts';
import { renderWorkers, treeRss, WebhookProbe } from '../../../support/planwright-probe.ts';
import { startPlanwrightCli, type StartedPlanwright } from '../../../support/planwright-start.ts';
import { WALL_LIMIT_FACTOR } from '../../../../src/kudo/pool/pool.ts';
import { WORKER_OVERHEAD_MB, memoryNeededMb } from '../../../../src/kudo/render/memory-budget.ts';
import { applyStepsOperatorVersion } from '../../../support/kudo-objects.ts';

/** Render limits for the test: a short deadline keeps it quick. */
const RENDER = { workers: 2, deadlineMs: 5_000, maxHeapMb: 128 };
/** `planwright start`'s flags for them. */
const RENDER_FLAGS = [
  '--render-workers',
  String(RENDER.workers),
  '--render-timeout',
  `${RENDER.deadlineMs}ms`,
  '--render-worker-heap',
  String(RENDER.maxHeapMb),
];
/**
 * How long a render may hold its worker on a busy machine: the deadline counts CPU time, so
 * a starved hostile render runs up to the pool's wall-clock limit (plus a plan pass's writes).
 */
const RENDER_WAIT_MS = WALL_LIMIT_FACTOR * RENDER.deadlineMs + 30_000;
/**
 * The render deadline's message: its CPU time used up, or — on a machine so busy that the
 * render got less than a tenth of a core — the pool's wall-clock limit reached first.
 */
const DEADLINE = `did not finish within (${RENDER.deadlineMs} ms \\(the render deadline\\)|\\d+ ms of wall-clock time \\(the limit is ${WALL_LIMIT_FACTOR * RENDER.deadlineMs} ms on a busy machine)`;
/**
 * A worker out of memory: its heap limit reached, or its resident memory past heap + overhead.
 */
const OUT_OF_MEMORY = `ran out of memory(: used \\d+ MiB( and was growing by \\d+ MiB between two reads)?)? \\(the limit is ${RENDER.maxHeapMb} MiB (of heap and ${RENDER.maxHeapMb + WORKER_OVERHEAD_MB} MiB in all )?per render worker\\)`;
/**
 * Stated bound on resident memory of Planwright and its worker processes: what the
 * Deployment's limit counts for these flags (docs/limits.md) — the main process, the admission
 * worker and 2 render workers, each worker at most its heap limit plus the runtime (the render
 * pool kills one past it).
 */
const RSS_BOUND = memoryNeededMb(RENDER.workers, RENDER.maxHeapMb) * 2 ** 20;

const GROUP = { group: 'kudo.dev', version: 'v1beta1' } as const;

const configMap = (name: string, data = ''): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-${name}\ndata:\n  plan: {{ .PlanName }}\n${data}`;

/** Plan-time hostiles: OperatorVersion name → its templates and what the step must say. */
const HOSTILE_PLANS: Record<
  string,
  {
    templates: Record<string, string>;
    parameters?: Parameter[];
    values?: Record<string, string>;
    message: RegExp;
  }
> = {
  regex: {
    // The crash loop: a hostname check that backtracks for tens of seconds in JS.
    templates: {
      'host.yaml': `{{ if not (regexMatch "^([a-z0-9]+-?)+$" .Params.HOST) }}{{ fail (printf "HOST %q is not a valid hostname" .Params.HOST) }}{{ end }}${configMap('host')}`,
    },
    parameters: [{ name: 'HOST', default: 'ok' }],
    values: { HOST: `${'a'.repeat(31)}!` },
    message: /template host\.yaml line 1: .*HOST "a{31}!" is not a valid hostname/,
  },
  loop: {
    templates: {
      'loop.yaml': `{{ range until 1000 }}{{ range until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}{{ end }}${configMap('loop')}`,
    },
    message: new RegExp(`template loop\\.yaml: ${DEADLINE}`),
  },
  memory: {
    templates: {
      // Each step keeps another million-element list alive.
      'grow.yaml': `{{ $x := list }}{{ range until 1000 }}{{ $x = append $x (until 1000000) }}{{ end }}${configMap('grow')}`,
    },
    // Whichever limit it reaches first: near its heap limit V8 collects garbage for a long
    // time before it gives up, so on a busy machine the deadline may come first.
    message: new RegExp(`template grow\\.yaml: (${OUT_OF_MEMORY}|${DEADLINE})`),
  },
  output: {
    templates: {
      'big.yaml': `${configMap('big', '  big: |\n')}{{ range until 600000 }}    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n{{ end }}`,
    },
    message: /output exceeds the limit of 4194304 characters/,
  },
  repeat: {
    // No loop at all, but one call that builds a 480-million-character string: not a cheap
    // function, so it renders in a worker (never on the main thread), where a limit ends it.
    templates: { 'repeat.yaml': `{{ repeat 60000000 "xxxxxxxx" }}${configMap('repeat')}` },
    message: new RegExp(
      `template repeat\\.yaml(: (${OUT_OF_MEMORY}|${DEADLINE}|.*output exceeds the limit of 4194304 characters|rendering produced a string longer)| line 1: .*error calling repeat: its result has 480000000 characters, more than the limit of 4194304)`,
    ),
  },
  nesting: {
    templates: {
      'deep.yaml': `${'{{ if true }}'.repeat(10_000)}${'{{ end }}'.repeat(10_000)}${configMap('deep')}`,
    },
    message: /template deep\.yaml: .*nested too deeply to parse/,
  },
};

/** Every hostile plan in turn, each up to its render wait. */
const HOSTILE_PLANS_MS = Object.keys(HOSTILE_PLANS).length * RENDER_WAIT_MS;

describe('hostile Instances and OperatorVersions, with bystanders (child process)', () => {
  let ns: string;
  let child: StartedPlanwright;
  let custom: k8s.CustomObjectsApi;
  let probe: WebhookProbe;
  let peakRss = 0;
  /** Each process's resident memory at the peak. */
  let atPeak = '';
  let rssTimer: NodeJS.Timeout | undefined;
  const bystanderMs: number[] = [];

  const create = (plural: string, body: object): Promise<unknown> =>
    custom.createNamespacedCustomObject({ ...GROUP, namespace: ns, plural, body });
  const instance = (name: string, ov: string, parameters: Record<string, unknown> = {}) => ({
    apiVersion: 'kudo.dev/v1beta1',
    kind: 'Instance',
    metadata: { name },
    spec: { operatorVersion: { name: ov }, parameters },
  });
  const get = async (name: string): Promise<Instance | undefined> =>
    (await custom
      .getNamespacedCustomObject({ ...GROUP, namespace: ns, plural: 'instances', name })
      .catch(() => undefined)) as Instance | undefined;
  const deploy = async (name: string) => (await get(name))?.status?.planStatus?.['deploy'];
  /** Waits for the deploy plan to end; COMPLETE, or the failure with its message. */
  const completes = async (name: string): Promise<void> => {
    const ps = await waitFor(
      `${name} done`,
      async () => {
        const p = await deploy(name);
        return p && ['COMPLETE', 'FATAL_ERROR', 'ABORTED'].includes(p.status ?? '') ? p : undefined;
      },
      { timeoutMs: RENDER_WAIT_MS, intervalMs: 100 },
    );
    expect({ name, status: ps.status, message: ps.message }).toEqual({
      name,
      status: 'COMPLETE',
      message: ps.message,
    });
  };
  /** The apiserver's (or our webhook's) refusal text for creating this Instance. */
  const refusal = async (body: object): Promise<string> => {
    try {
      await create('instances', body);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    return 'accepted';
  };

  /** Creates a bystander and waits for its deploy plan: how long a normal plan takes now. */
  const bystander = async (): Promise<void> => {
    const name = uniqueName('bystander');
    const started = Date.now();
    await create('instances', instance(name, 'bystander'));
    await completes(name);
    bystanderMs.push(Date.now() - started);
  };

  // It measures latency and memory of the whole tree: in a full run, only once the other lanes
  // have ended (SERIAL_FILES, test/runner/plan.ts).
  beforeAll(() => waitForLaneGate((line) => console.log(`[hostile] ${line}`)), 30 * 60_000);

  beforeAll(async () => {
    await installKudoCrds();
    const kc = kubeConfig();
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    ns = await createTestNamespace('hostile');
    child = await startPlanwrightCli({
      kubeconfig: testCluster().kubeconfigPath,
      watchNamespaces: [ns],
      args: RENDER_FLAGS,
    });
    rssTimer = setInterval(() => {
      if (!child.proc.pid) return;
      const sample = treeRss(child.proc.pid);
      if (sample.total > peakRss) {
        peakRss = sample.total;
        atPeak = sample.each
          .map((p) => `${(p.rss / 2 ** 20).toFixed(0)} MiB ${p.command}`)
          .join('\n');
      }
    }, 200);
    await create(
      'operatorversions',
      applyStepsOperatorVersion('bystander', {
        'a.yaml': configMap('a'),
        'b.yaml': configMap('b'),
      }),
    );
    for (const [name, h] of Object.entries(HOSTILE_PLANS)) {
      await create(
        'operatorversions',
        applyStepsOperatorVersion(`hostile-${name}`, h.templates, {
          ...(h.parameters ? { parameters: h.parameters } : {}),
        }),
      );
    }
    await create(
      'operatorversions',
      applyStepsOperatorVersion(
        'typed',
        {
          'typed.yaml': configMap(
            'typed',
            [
              '  size: {{ .Params.SIZE | quote }}',
              '  keys: {{ len .Params.MAP | quote }}',
              '  proto: {{ index .Params "__proto__" | quote }}',
              '  ctor: {{ .Params.constructor | quote }}',
              '  tostring: {{ .Params.toString | quote }}',
              '',
            ].join('\n'),
          ),
        },
        {
          parameters: [
            { name: 'SIZE', 'value-type': 'integer', default: '1' },
            { name: 'MAP', 'value-type': 'map', default: '{}' },
            { name: '__proto__', default: 'p' },
            { name: 'constructor', default: 'c' },
            { name: 'toString', default: 't' },
          ],
        },
      ),
    );
    // The webhook answers (a first bystander goes through it end to end).
    await bystander();
    probe = new WebhookProbe(child, ns, 'bystander');
    probe.start(25);
  });

  afterAll(async () => {
    probe?.stop();
    clearInterval(rssTimer);
    await child?.stop();
  });

  it(
    'ends every hostile plan FATAL_ERROR naming the template and the limit, while a bystander completes beside each',
    async () => {
      const firstSample = probe.latenciesMs.length;
      const report: string[] = [];
      for (const [name, h] of Object.entries(HOSTILE_PLANS)) {
        // Each case starts with the pool at its steady state: a worker ended by the previous
        // case is replaced at once, but starting one from TypeScript sources under jest takes
        // seconds (from dist/ about half a second), which is not what is measured here.
        // (Workers start on demand: before the first case there are none, and none starting.)
        await waitFor(
          'no render worker starting',
          async () => (await renderWorkers(child)).starting === 0,
          {
            // A hang guard: a worker starts in about half a second from dist/, far longer
            // on a machine whose CPUs are busy with other work.
            timeoutMs: 180_000,
            intervalMs: 100,
          },
        );
        const from = probe.latenciesMs.length;
        await create('instances', instance(`hostile-${name}`, `hostile-${name}`, h.values ?? {}));
        // The bystander starts while the hostile render runs.
        const [done] = await Promise.all([
          waitFor(
            `hostile-${name} FATAL_ERROR`,
            async () => {
              const ps = await deploy(`hostile-${name}`);
              return ps?.status === 'FATAL_ERROR' ? ps : undefined;
            },
            { timeoutMs: RENDER_WAIT_MS, intervalMs: 100 },
          ),
          bystander(),
        ]);
        expect(done.message).toMatch(h.message);
        // Short enough for a person to read: no megabytes of echoed input.
        expect((done.message ?? '').length).toBeLessThan(2_000);
        const latency = probe.summary(from);
        report.push(
          `${name}: bystander ${bystanderMs[bystanderMs.length - 1]} ms, webhook p99 ${latency.p99.toFixed(1)} ms`,
        );
      }
      // Every hostile plan went to a render worker; the bystanders' bounded templates
      // rendered on the main thread.
      const metrics = await child.metrics();
      const jobs = (kind: string): number =>
        Number(
          new RegExp(
            `^planwright_render_jobs_total\\{pool="render",kind="${kind}"\\} (\\d+)`,
            'm',
          ).exec(metrics)?.[1] ?? 0,
        );
      expect(jobs('renderAll') + jobs('render')).toBeGreaterThanOrEqual(
        Object.keys(HOSTILE_PLANS).length - 1, // the nesting one fails to parse: inline or not, the same error
      );
      expect(jobs('inline')).toBeGreaterThanOrEqual(bystanderMs.length);
      const latency = probe.summary(firstSample);
      console.log(
        `hostile plans (one at a time, a bystander beside each): ${report.join('; ')}. Overall webhook ${latency.count} calls p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms; first (unloaded) bystander ${bystanderMs[0]} ms; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB (bound ${(RSS_BOUND / 2 ** 20).toFixed(0)} MiB)`,
      );
      expect(probe.failures).toEqual([]);
      expect(child.proc.exitCode).toBeNull();
    },
    HOSTILE_PLANS_MS,
  );

  it('denies hostile parameter values at admission, naming the field and the limit', async () => {
    const firstSample = probe.latenciesMs.length;
    const typed = (parameters: Record<string, unknown>) =>
      instance(uniqueName('typed'), 'typed', parameters);
    const deep = deepSequence(9_000);
    const cycle = 'a: &x\n  b: *x';
    const laughs = billionLaughs();
    const huge = `k: ${'v'.repeat(600 * 1024)}`;
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['deep', { MAP: deep }, /spec\.parameters\.MAP: .*nests deeper than the limit of 64 levels/],
      ['cycle', { MAP: cycle }, /spec\.parameters\.MAP: .*refers to itself through an alias/],
      ['laughs', { MAP: laughs }, /expands more than 100 aliases \(the limit per value\)/],
      ['number', { SIZE: 5 }, /spec\.parameters\.SIZE.*string/i],
      // Mutating webhooks run before the schema's maxLength: ours answers first.
      [
        'huge',
        { MAP: huge },
        /spec\.parameters\.MAP: .*\(614403 bytes\) is 614403 bytes, more than the limit of 524288 bytes per value/,
      ],
      ['out of int64', { SIZE: '9223372036854775808' }, /out of range for a 64-bit integer/],
    ];
    for (const [what, parameters, expected] of cases) {
      const message = await refusal(typed(parameters));
      expect({ what, message }).toEqual({ what, message: expect.stringMatching(expected) });
      // Quotes excerpts, not the value (the huge one is 600 KiB).
      expect(message.length).toBeLessThan(4_000);
    }
    // Bystanders are unaffected meanwhile.
    await bystander();
    const latency = probe.summary(firstSample);
    console.log(
      `hostile parameters: webhook ${latency.count} calls p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms`,
    );
    expect(probe.failures).toEqual([]);
    expect(child.proc.exitCode).toBeNull();
  });

  it('accepts and renders what is valid however unusual: int64 max, a 20,000-key map, prototype names', async () => {
    const map = Array.from({ length: 20_000 }, (_, i) => `key${i}: v${i}`).join('\n');
    const name = uniqueName('typed');
    await create(
      'instances',
      instance(name, 'typed', {
        SIZE: '9223372036854775807',
        MAP: map,
        ['__proto__']: 'P',
        constructor: 'C',
        toString: 'T',
      }),
    );
    await completes(name);
    const cm = await kubeConfig()
      .makeApiClient(k8s.CoreV1Api)
      .readNamespacedConfigMap({ namespace: ns, name: `${name}-typed` });
    expect(cm.data).toEqual({
      plan: 'deploy',
      size: '9223372036854775807',
      keys: '20000',
      proto: 'P',
      ctor: 'C',
      tostring: 'T',
    });
    // And with no values set, the defaults of such names (not Object.prototype's) apply.
    const defaults = uniqueName('typed');
    await create('instances', instance(defaults, 'typed'));
    await waitFor(
      `${defaults} COMPLETE`,
      async () => (await deploy(defaults))?.status === 'COMPLETE',
      {
        timeoutMs: 60_000,
        intervalMs: 200,
      },
    );
  });

  it('stayed up throughout, within its memory bound', () => {
    expect(child.proc.exitCode).toBeNull();
    expect(child.log()).not.toMatch(/FATAL ERROR|Reached heap limit.*main/);
    expect(peakRss).toBeGreaterThan(0);
    console.log(`peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB:\n${atPeak}`);
    expect(peakRss).toBeLessThan(RSS_BOUND);
  });
});
