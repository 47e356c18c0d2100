// The render pool with real worker processes (started from the TypeScript sources): renders
// come back as objects, a job's own failures come back typed, and a job past its deadline or
// its memory limit fails naming the template and the limit while the pool keeps serving.
// renderTask turns every such failure into a FatalTaskError, never a retried error.
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { Instance, OperatorVersion } from '../../../../src/kudo/api/types.ts';
import {
  ParameterValueError,
  RenderBudget,
  RenderError,
  type RenderBatch,
  type RenderJob,
} from '../../../../src/kudo/render/index.ts';
import {
  RenderLimitError,
  RenderPool,
  RenderPoolBusyError,
  RenderPoolStoppedError,
  RenderWorkerStartError,
} from '../../../../src/kudo/pool/index.ts';
import { renderTask } from '../../../../src/kudo/tasks/objects.ts';
import { waitFor } from '../../../support/wait.ts';
import { failure, job, scalars } from './jobs.ts';
import { FatalTaskError, type TaskContext } from '../../../../src/kudo/tasks/types.ts';
import { TEST_PRIORITY } from './jobs.ts';

const logger = pino({ level: 'silent' });
const CONFIGMAP =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\ndata:\n  first: {{ index .Params.LIST 0 | quote }}\n';
// Spins for a very long time without growing memory: only the deadline ends it.
const SPIN =
  '{{ range until 1000 }}{{ range until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}{{ end }}';
// Grows one list until the heap limit ends it.
const GROW =
  '{{ $x := list }}{{ range until 100000000 }}{{ $x = append $x "aaaaaaaaaaaaaaaa" }}{{ end }}';

/** Pids of this process's children (the pool's workers among them), from /proc. */
async function childPids(): Promise<number[]> {
  const text = await readFile(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
  return text.split(' ').filter(Boolean).map(Number);
}

/** Starts the pool's (only) worker with a first job; its pid. */
async function startedWorker(p: RenderPool): Promise<number> {
  const before = await childPids();
  await p.render(configMap('warm.yaml'));
  const [pid] = (await childPids()).filter((c) => !before.includes(c));
  if (pid === undefined) throw new Error('no worker process found');
  return pid;
}

/** A valid render job (one ConfigMap). */
function configMap(template: string): RenderJob {
  return job(template, CONFIGMAP, [{ name: 'LIST', type: 'array', raw: '[x]' }]);
}

describe('RenderPool', () => {
  const pools: RenderPool[] = [];
  const pool = (
    deadlineMs = 20_000,
    size = 1,
    maxQueued?: number,
    registry?: Registry,
    idleMs?: number,
  ): RenderPool => {
    const p = new RenderPool({
      ...TEST_PRIORITY,
      name: 'test',
      size,
      deadlineMs,
      maxHeapMb: 64,
      ...(idleMs !== undefined ? { idleMs } : {}),
      ...(maxQueued !== undefined ? { maxQueued } : {}),
      ...(registry ? { registry } : {}),
      logger,
    });
    pools.push(p);
    return p;
  };

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.stop()));
  });

  it('renders in a worker process, decoding array/map parameters there', async () => {
    const p = pool();
    const out = await p.render(
      job('cm.yaml', CONFIGMAP, [{ name: 'LIST', type: 'array', raw: '[a, b]' }]),
    );
    expect(out.objects).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inst' }, data: { first: 'a' } },
    ]);
    expect(out.outputChars).toBeGreaterThan(50);
    expect(await p.decode('a: [1, 2]', 'map')).toEqual({ value: { a: [1, 2] } });
    expect(await p.decode('&a [*a]', 'array')).toEqual({
      problem: 'refers to itself through an alias (a cycle)',
    });
  });

  it("returns a job's own failures typed: template, output and parameter problems", async () => {
    const p = pool();
    const bad = await failure(p.render(job('bad.yaml', 'a: 1\nb: {{ .Params.NOPE }}\n')));
    expect(bad).toBeInstanceOf(RenderError);
    expect(bad.message).toMatch(/^template bad.yaml line 2: .*map has no entry for key "NOPE"/);
    const dup = await failure(p.render(job('dup.yaml', 'a: 1\na: 2\n')));
    expect(dup.message).toMatch(/rendered output is not valid YAML: map key "a" appears twice/);
    const deep = await failure(
      p.render(job('deep.yaml', `${'{{ if true }}'.repeat(10_000)}${'{{ end }}'.repeat(10_000)}`)),
    );
    expect(deep).toBeInstanceOf(RenderError);
    expect(deep.message).toMatch(/template deep.yaml: .*nested too deeply to parse/);
    const param = await failure(
      p.render(job('p.yaml', 'a: 1', [{ name: 'MAP', type: 'map', raw: `${'- '.repeat(9000)}x` }])),
    );
    expect(param).toBeInstanceOf(ParameterValueError);
    expect(param.message).toBe(
      'parameter MAP nests deeper than the limit of 64 levels; fix spec.parameters.MAP',
    );
    const big = await failure(
      p.render({
        ...job('big.yaml', '{{ range until 100000 }}xxxxxxxxxx{{ end }}'),
        maxOutputChars: 1000,
      }),
    );
    expect(big.message).toMatch(/output exceeds the limit of 1000 characters/);
  });

  it("renders a task's templates in one message to a worker and one back, each as alone", async () => {
    const registry = new Registry();
    const p = pool(1_000, 1, undefined, registry);
    const jobs = async (kind: string): Promise<number> => {
      const metric = await registry.getSingleMetric('planwright_render_jobs_total')?.get();
      return metric?.values.find((v) => v.labels['kind'] === kind)?.value ?? 0;
    };
    {
      const shared = {
        parameters: [{ name: 'LIST', type: 'array' as const, raw: '[x]' }],
        scalars,
        maxOutputChars: 1 << 20,
      };
      const batch = (...templates: Array<[string, string]>): RenderBatch => ({
        ...shared,
        templates: templates.map(([template, text]) => ({ key: `b/${template}`, template, text })),
      });
      const texts: Array<[string, string]> = [0, 1, 2].map((i) => [
        `cm${i}.yaml`,
        CONFIGMAP.replace('{{ .Name }}', `{{ .Name }}-${i}`),
      ]);
      const outputs = await p.renderAll(batch(...texts));
      expect(await jobs('renderAll')).toBe(1);
      expect(await jobs('render')).toBe(0);
      expect(outputs.map((o) => o.objects[0]?.metadata?.name)).toEqual([
        'inst-0',
        'inst-1',
        'inst-2',
      ]);
      // Each template sees fresh variables: one that changes .Params leaves the next alone.
      const [setter, reader] = await p.renderAll(
        batch(
          ['set.yaml', `{{ $_ := set .Params "LIST" (list "changed") }}${CONFIGMAP}`],
          ['read.yaml', CONFIGMAP],
        ),
      );
      expect(setter?.objects[0]?.['data']).toEqual({ first: 'changed' });
      expect(reader?.objects[0]?.['data']).toEqual({ first: 'x' });
      // The first template that fails is named; the batch's deadline is the sum of its templates'.
      const bad = await failure(
        p.renderAll(batch(texts[0] as [string, string], ['bad.yaml', 'b: {{ .Params.NOPE }}\n'])),
      );
      expect(bad).toBeInstanceOf(RenderError);
      expect(bad.message).toMatch(/^template bad.yaml line 1: .*map has no entry for key "NOPE"/);
      const spin = await failure(p.renderAll(batch(['ok.yaml', '# ok\n'], ['spin.yaml', SPIN])));
      expect(spin).toBeInstanceOf(RenderLimitError);
      // Its CPU deadline — or, when the machine starved the worker, the wall-clock limit first.
      expect(spin.message).toMatch(
        /^templates ok\.yaml, spin\.yaml: did not finish within (2000 ms \(the render deadline, 1000 ms per template\)|\d+ ms of wall-clock time \(the limit is 20000 ms on a busy machine; it got \d+ ms of its 2000 ms render deadline\)); the render was stopped$/,
      );
      expect(await jobs('renderAll')).toBe(4);
      expect(await jobs('render')).toBe(0);
    }
  });

  it('stops a render at its deadline, naming the template and the limit, and keeps serving', async () => {
    const registry = new Registry();
    // The deadline counts CPU time: room for 1.5 s of it on a machine busy with other work.
    const p = new RenderPool({
      ...TEST_PRIORITY,
      name: 'test',
      size: 1,
      deadlineMs: 1_500,
      wallLimitMs: 45_000,
      maxHeapMb: 64,
      registry,
      logger,
    });
    pools.push(p);
    const spin = await failure(p.render(job('spin.yaml', SPIN)));
    expect(spin).toBeInstanceOf(RenderLimitError);
    expect((spin as RenderLimitError).limit).toBe('deadline');
    expect(spin.message).toBe(
      'template spin.yaml: did not finish within 1500 ms (the render deadline); the render was stopped',
    );
    const out = await p.render(job('ok.yaml', '# nothing\n'));
    expect(out.objects).toEqual([]);
    expect(p.workers).toBe(1);
    const metrics = await registry.metrics();
    expect(metrics).toContain('planwright_render_limited_total{pool="test",limit="deadline"} 1');
    expect(metrics).toContain('planwright_render_workers{pool="test",state="ready"} 1');
  });

  it('counts the CPU time a render uses, not the time a busy machine keeps its worker waiting', async () => {
    const p = pool(1_000);
    const pid = await startedWorker(p);
    // A stopped worker gets no CPU at all: the render waits well past its deadline, then runs.
    process.kill(pid, 'SIGSTOP');
    try {
      const late = p.render(configMap('late.yaml'));
      await sleep(2_500);
      process.kill(pid, 'SIGCONT');
      expect((await late).objects).toHaveLength(1);
      expect(p.workers).toBe(1);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('still ends a render that got too little CPU for too long (the wall-clock limit)', async () => {
    const p = new RenderPool({
      ...TEST_PRIORITY,
      name: 'test',
      size: 1,
      deadlineMs: 1_000,
      wallLimitMs: 1_500,
      maxHeapMb: 64,
      logger,
    });
    pools.push(p);
    const pid = await startedWorker(p);
    process.kill(pid, 'SIGSTOP');
    try {
      const starved = await failure(p.render(configMap('starved.yaml')));
      expect((starved as RenderLimitError).limit).toBe('deadline');
      const said =
        /^template starved\.yaml: did not finish within \d+ ms of wall-clock time \(the limit is 1500 ms on a busy machine; it got (\d+) ms of its 1000 ms render deadline\); the render was stopped$/.exec(
          starved.message,
        );
      expect(said).not.toBeNull();
      // Stopped before the job came, it got next to no CPU — the kernel reports CPU time in
      // 10 ms ticks, so a few microseconds may show as one — far from its deadline: the
      // wall-clock limit ended it, not the CPU deadline.
      expect(Number(said?.[1])).toBeLessThan(100);
      // The stopped worker was ended and replaced.
      expect((await p.render(configMap('after.yaml'))).objects).toHaveLength(1);
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Already gone: the pool ended it.
      }
    }
  });

  it('ends a render that outgrows the heap limit, and keeps serving', async () => {
    const p = pool();
    const grow = await failure(p.render(job('grow.yaml', GROW)));
    expect(grow).toBeInstanceOf(RenderLimitError);
    expect((grow as RenderLimitError).limit).toBe('memory');
    // Whichever comes first: the heap limit, or the resident budget (heap + overhead) as the
    // list's growth also takes memory outside the heap.
    expect(grow.message).toMatch(
      /^template grow\.yaml: ran out of memory(: used \d+ MiB( and was growing by \d+ MiB between two reads)?)? \(the limit is 64 MiB (of heap and \d+ MiB in all )?per render worker\)$/,
    );
    expect((await p.render(job('ok.yaml', '# nothing\n'))).objects).toEqual([]);
  });

  it('gives up a job whose signal aborts, and refuses work beyond its queue', async () => {
    const p = pool(20_000, 1, 1);
    await p.render(job('warm.yaml', '# started\n'));
    const abort = new AbortController();
    const running = failure(p.render(job('spin.yaml', SPIN), abort.signal));
    const queued = p.render(job('queued.yaml', '# nothing\n'));
    expect(await failure(p.render(job('third.yaml', '# nothing\n')))).toBeInstanceOf(
      RenderPoolBusyError,
    );
    setTimeout(() => abort.abort(new Error('reconcile aborted')), 500);
    expect((await running).message).toBe('reconcile aborted');
    expect((await queued).objects).toEqual([]);
  });

  it('fails waiting and running jobs when stopped, and ends its workers', async () => {
    const p = pool();
    const running = failure(p.render(job('spin.yaml', SPIN)));
    await new Promise((r) => setTimeout(r, 300));
    await p.stop();
    expect(await running).toBeInstanceOf(RenderPoolStoppedError);
    expect(p.workers).toBe(0);
    expect(await failure(p.render(job('late.yaml', 'a: 1')))).toBeInstanceOf(
      RenderPoolStoppedError,
    );
  });

  it('starts workers only when jobs need them, up to its size for a burst, and again after a stop (a new term)', async () => {
    const p = pool(20_000, 2);
    const term1 = new AbortController();
    p.start(term1.signal);
    await new Promise((r) => setTimeout(r, 200));
    expect(p.workers).toBe(0);
    // One namespace's burst gets all workers but one (the one left for other namespaces)…
    const burst = [1, 2, 3].map((i) => p.render(configMap(`b${i}.yaml`)));
    expect(p.workers).toBe(1);
    // …and a burst of two namespaces gets them all.
    const other = { ...configMap('other.yaml'), scalars: { ...scalars, Namespace: 'other' } };
    burst.push(p.render(other));
    expect(p.workers).toBe(2);
    await Promise.all(burst);
    expect(p.workers).toBe(2);
    term1.abort();
    await p.stop();
    expect(p.workers).toBe(0);
    expect(await failure(p.render(job('between.yaml', 'a: 1')))).toBeInstanceOf(
      RenderPoolStoppedError,
    );
    const term2 = new AbortController();
    p.start(term2.signal);
    await new Promise((r) => setTimeout(r, 0));
    expect(p.workers).toBe(0);
    const out = await p.render(
      job('cm.yaml', CONFIGMAP, [{ name: 'LIST', type: 'array', raw: '[x]' }]),
    );
    expect(out.objects[0]).toMatchObject({ data: { first: 'x' } });
    expect(p.workers).toBe(1);
    term2.abort();
    await p.stop();
    expect(p.workers).toBe(0);
  });

  it('ends workers that stay idle, and starts them again for the next job', async () => {
    const p = pool(20_000, 2, undefined, undefined, 300);
    const before = new Set(await childPids());
    await Promise.all([p.render(configMap('a.yaml')), p.render(configMap('b.yaml'))]);
    const started = (await childPids()).filter((pid) => !before.has(pid));
    expect(p.workers).toBeGreaterThan(0);
    expect(started.length).toBeGreaterThan(0);
    await waitFor('idle workers to exit', () => p.workers === 0);
    // The processes are gone, not only forgotten.
    await waitFor('worker processes gone', async () => {
      const alive = new Set(await childPids());
      return started.every((pid) => !alive.has(pid));
    });
    const out = await p.render(
      job('c.yaml', CONFIGMAP, [{ name: 'LIST', type: 'array', raw: '[y]' }]),
    );
    expect(out.objects[0]).toMatchObject({ data: { first: 'y' } });
    expect(p.workers).toBe(1);
    await waitFor('idle workers to exit', () => p.workers === 0);
  });

  it('keeps a warmed worker alive while warm() keeps being called, and lets it go after', async () => {
    // An idle time well above the 100 ms between calls, so a busy machine does not flake it.
    const p = pool(20_000, 1, undefined, undefined, 1_500);
    expect(p.workers).toBe(0);
    await p.warm();
    expect(p.workers).toBe(1);
    // Called more often than the idle time, for three idle times: the worker stays.
    for (let i = 0; i < 45; i++) {
      await new Promise((r) => setTimeout(r, 100));
      void p.warm();
      expect(p.workers).toBe(1);
    }
    const decoded = await p.decode('[1, 2]', 'array');
    expect(decoded).toEqual({ value: [1, 2] });
    expect(p.workers).toBe(1);
    await waitFor('idle workers to exit', () => p.workers === 0);
  });

  it('does not start a worker on every warm() call while workers fail to start', async () => {
    const p = new RenderPool({
      ...TEST_PRIORITY,
      name: 'test',
      size: 1,
      deadlineMs: 20_000,
      maxHeapMb: 64,
      startTimeoutMs: 1,
      logger,
    });
    pools.push(p);
    const before = new Set(await childPids());
    await p.warm(); // the start fails (1 ms is too short) and warm() resolves anyway
    expect(p.workers).toBe(0);
    for (let i = 0; i < 5; i++) void p.warm();
    expect(p.workers).toBe(0);
    // A job still tries (and says why it cannot run).
    expect(await failure(p.render(configMap('late.yaml')))).toBeInstanceOf(RenderWorkerStartError);
    await waitFor('no worker processes left', async () =>
      (await childPids()).every((pid) => before.has(pid)),
    );
  });

  it('makes renderTask fail FATAL for limits and budgets, naming the template', async () => {
    const p = pool(1_500);
    const ov: OperatorVersion = {
      metadata: { name: 'op-1.0', namespace: 'ns', uid: 'ov', resourceVersion: '1' },
      spec: {
        parameters: [{ name: 'HOST', default: 'ok' }],
        templates: {
          'spin.yaml': SPIN,
          'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Params.HOST }}\n',
          'cm2.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Params.HOST }}2\n',
        },
      },
    };
    const instance: Instance = { metadata: { name: 'inst', namespace: 'ns', uid: 'i' } };
    const ctx = (budget?: RenderBudget): TaskContext =>
      ({
        instance,
        operatorVersion: ov,
        at: { plan: 'deploy', phase: 'main', step: 'all' },
        params: Object.assign(Object.create(null) as object, { HOST: 'h' }),
        services: { templates: p },
        ...(budget ? { renderBudget: budget } : {}),
        signal: new AbortController().signal,
      }) as unknown as TaskContext;
    const spin = await failure(renderTask('app', ['spin.yaml'], ctx()));
    expect(spin).toBeInstanceOf(FatalTaskError);
    // Its CPU deadline, or — on a machine so busy that the worker got under a tenth of a core —
    // the wall-clock limit first: either way the limit is named and the task is FATAL.
    expect(spin.message).toMatch(
      /^task app: template spin\.yaml: did not finish within (1500 ms \(the render deadline\)|\d+ ms of wall-clock time \(the limit is 15000 ms on a busy machine; it got \d+ ms of its 1500 ms render deadline\)); the render was stopped$/,
    );
    const over = await failure(renderTask('app', ['cm.yaml'], ctx(new RenderBudget(10))));
    expect(over).toBeInstanceOf(FatalTaskError);
    expect(over.message).toMatch(
      /^task app: template cm.yaml: the plan's templates rendered more than 10 characters in one pass/,
    );
    const missing = await failure(renderTask('app', ['nope.yaml'], ctx()));
    expect(missing).toBeInstanceOf(FatalTaskError);
    expect(missing.message).toMatch(
      /template nope.yaml does not exist in OperatorVersion ns\/op-1.0/,
    );
    expect(await renderTask('app', ['cm.yaml'], ctx())).toEqual([
      {
        template: 'cm.yaml',
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h' } },
      },
    ]);
    // A task's templates go to the pool as one batch, counted against the budget in order.
    const batches = jest.spyOn(p, 'renderAll');
    const singles = jest.spyOn(p, 'render');
    const both = await renderTask('app', ['cm.yaml', 'cm2.yaml'], ctx());
    expect(both.map((r) => r.template)).toEqual(['cm.yaml', 'cm2.yaml']);
    expect(batches).toHaveBeenCalledTimes(1);
    expect(singles).not.toHaveBeenCalled();
    const second = await failure(
      renderTask('app', ['cm.yaml', 'cm2.yaml'], ctx(new RenderBudget(60))),
    );
    expect(second.message).toMatch(
      /^task app: template cm2.yaml: the plan's templates rendered more than 60/,
    );
  });
});
