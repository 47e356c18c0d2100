// The controller's renderer: bounded templates render on this thread, byte for byte as a
// worker renders them and failing with the same errors; everything else — loops, template
// calls, expensive functions, large parameter values — goes to the render pool, whose worker
// processes start only then. Real worker processes (from the TypeScript sources).
import { afterAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import {
  type RenderBatch,
  type RenderJob,
  type Renderer,
  type RenderOutput,
} from '../../../../src/kudo/render/index.ts';
import { RoutingRenderer, RenderLimitError, RenderPool } from '../../../../src/kudo/pool/index.ts';
import { INLINE_MAX_PARSE_CHARS } from '../../../../src/kudo/render/bounded.ts';
import { KUDO_PACKAGES_DIR } from '../../../support/shared.ts';
import { failure, job, packageDefaults, scalars } from './jobs.ts';
import { TEST_PRIORITY } from './jobs.ts';

const logger = pino({ level: 'silent' });

const HEAD = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-{{ .StepName }}\n';
const PARAMS: RenderJob['parameters'] = [
  { name: 'V', type: 'string', raw: 'héllo "world"\n\tx' },
  { name: 'N', type: 'string', raw: '3' },
  { name: 'M', type: 'map', raw: 'a: 1\nb: [x, "y", {c: yes}]\nd: 0777\n' },
  { name: 'L', type: 'array', raw: '[one, two, 3]' },
];
/** Bounded templates exercising every kind of node and most allow-listed functions. */
const BOUNDED: Record<string, string> = {
  'fields.yaml': `${HEAD}data:\n  v: {{ .Params.V | quote }}\n  s: {{ squote .Params.N }}\n  ov: "{{ .OperatorVersion }}-{{ .AppVersion }}"\n`,
  'map.yaml': `${HEAD}data:\n  m: |\n{{ toYaml .Params.M | indent 4 }}\n  j: {{ toJson .Params.M | quote }}\n  first: {{ index .Params.L 0 }}\n  count: "{{ len .Params.L }}"\n`,
  'cond.yaml': `${HEAD}data:\n{{- if eq .Params.N "3" }}\n  three: "yes"\n{{- else }}\n  three: "no"\n{{- end }}\n{{- with .Params.M }}\n  a: "{{ .a }}"\n{{- end }}\n{{- $x := .Params.V | upper }}\n  up: {{ $x | b64enc | quote }}\n`,
  'funcs.yaml': `${HEAD}data:\n  p: {{ printf "%s/%d/%q" .Name (int .Params.N) .Params.V | squote }}\n  d: {{ .Params.MISSING_OK | default "dflt" | quote }}\n  r: {{ replace "l" "L" .Params.V | trunc 4 | quote }}\n  j: {{ join "," .Params.L | quote }}\n  sum: "{{ add (int .Params.N) 4 | mul 2 }}"\n  h: {{ sha256sum .Params.V }}\n  t: {{ ternary "a" "b" (gt (int .Params.N) 2) }}\n`,
};
const withMissingOk: RenderJob['parameters'] = [
  ...PARAMS,
  { name: 'MISSING_OK', type: 'string', raw: '' },
];

/** A Renderer that records what reached it. */
class Recording implements Renderer {
  readonly seen: string[] = [];
  constructor(private readonly inner: Renderer) {}
  render(j: RenderJob, signal?: AbortSignal): Promise<RenderOutput> {
    this.seen.push(j.template);
    return this.inner.render(j, signal);
  }
  renderAll(batch: RenderBatch, signal?: AbortSignal): Promise<RenderOutput[]> {
    this.seen.push(batch.templates.map((t) => t.template).join('+'));
    return this.inner.renderAll(batch, signal);
  }
}

describe('RoutingRenderer', () => {
  const pools: RenderPool[] = [];
  const setup = (registry?: Registry) => {
    const pool = new RenderPool({
      ...TEST_PRIORITY,
      name: 'test',
      size: 1,
      deadlineMs: 5_000,
      maxHeapMb: 64,
      logger,
    });
    pools.push(pool);
    const workers = new Recording(pool);
    const router = new RoutingRenderer({
      workers,
      ...(registry ? { registry, pool: 'test' } : {}),
    });
    return { pool, workers, router };
  };
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.stop()));
  });

  it('renders bounded templates inline, starting no worker; byte for byte what a worker renders', async () => {
    const registry = new Registry();
    const { pool, workers, router } = setup(registry);
    const inline: RenderOutput[] = [];
    for (const [name, text] of Object.entries(BOUNDED)) {
      const j = job(name, text, withMissingOk);
      expect(router.inline(j)).toBe(true);
      inline.push(await router.render(j));
    }
    const batch: RenderBatch = {
      parameters: withMissingOk,
      scalars,
      maxOutputChars: 1 << 20,
      templates: Object.entries(BOUNDED).map(([template, text]) => ({
        key: `test/${template}`,
        template,
        text,
      })),
    };
    const inlineAll = await router.renderAll(batch);
    expect(workers.seen).toEqual([]);
    expect(pool.workers).toBe(0);
    const metrics = await registry.getSingleMetricAsString('planwright_render_jobs_total');
    expect(metrics).toContain('planwright_render_jobs_total{pool="test",kind="inline"} 5');

    // The same jobs in a worker process.
    const inWorker = [];
    for (const [name, text] of Object.entries(BOUNDED)) {
      inWorker.push(await pool.render(job(name, text, withMissingOk)));
    }
    expect(JSON.stringify(inline)).toBe(JSON.stringify(inWorker));
    expect(JSON.stringify(inlineAll)).toBe(JSON.stringify(await pool.renderAll(batch)));
    // And it rendered something real (not two equal failures or empty lists).
    expect(inline[1]?.objects[0]?.data).toMatchObject({ first: 'one', count: '3' });
    expect(inline[2]?.objects[0]?.data).toMatchObject({ three: 'yes', a: '1' });
  });

  it('fails bounded templates inline with exactly the errors a worker gives', async () => {
    const { pool, workers, router } = setup();
    const failing = [
      job('missing.yaml', `${HEAD}data:\n  x: {{ .Params.NOPE }}\n`, PARAMS),
      job('unparsable.yaml', `${HEAD}data:\n  x: {{ .Params.V `, PARAMS),
      job('yaml.yaml', `${HEAD}data:\n  x: [{{ .Params.V | quote }}\n`, PARAMS),
      job('noname.yaml', 'apiVersion: v1\nkind: ConfigMap\n', PARAMS),
      job('func.yaml', `${HEAD}data:\n  x: {{ index .Params.L 7 }}\n`, PARAMS),
      job('param.yaml', `${HEAD}`, [{ name: 'L', type: 'array', raw: 'a: b' }]),
      job('output.yaml', `${HEAD}data:\n  x: {{ .Params.V }}\n`, PARAMS, 40),
    ];
    for (const j of failing) {
      const here = await failure(router.render(j));
      const there = await failure(pool.render(j));
      expect(here.constructor).toBe(there.constructor);
      expect(here.message).toBe(there.message);
      expect(here.message).toContain(j.template === 'param.yaml' ? 'parameter L' : j.template);
    }
    expect(workers.seen).toEqual([]);
  });

  it('renders a bounded template whose output is long in a worker (its YAML is parsed there)', async () => {
    const { workers, router } = setup();
    const long = 'x'.repeat(INLINE_MAX_PARSE_CHARS);
    const j = job('long.yaml', `${HEAD}data:\n  x: {{ .Params.V }}\n`, [
      { name: 'V', type: 'string', raw: long },
    ]);
    expect(router.inline(j)).toBe(true); // cheap to execute…
    const out = await router.render(j);
    expect(workers.seen).toEqual(['long.yaml']); // …but parsed in a worker
    expect(out.objects[0]?.data).toEqual({ x: long });
  });

  it.each([
    ['a range', `${HEAD}{{ range .Params.L }}{{ end }}`, PARAMS],
    ['a template call', `{{ define "x" }}{{ end }}${HEAD}{{ template "x" }}`, PARAMS],
    ['repeat', `${HEAD}data:\n  x: {{ repeat 3 "ab" }}\n`, PARAMS],
    ['a regex', `${HEAD}data:\n  x: "{{ regexMatch "^a" .Params.V }}"\n`, PARAMS],
    [
      'large parameter values',
      `${HEAD}data:\n  x: {{ .Params.M | toJson | quote }}\n`,
      [{ name: 'M', type: 'map', raw: `k: ${'v'.repeat(70 * 1024)}` }],
    ],
    [
      'a parameter value with YAML aliases',
      `${HEAD}data:\n  x: {{ .Params.M | toJson | quote }}\n`,
      [{ name: 'M', type: 'map', raw: 'a: &x [1]\nb: *x' }],
    ],
    ['too many actions', `${HEAD}data:\n  x: "${'{{ .Name }}'.repeat(300)}"\n`, PARAMS],
  ] as const)(
    'sends a template with %s to a worker, which renders it as before',
    async (_what, text, params) => {
      const { workers, router } = setup();
      const j = job('w.yaml', text, params);
      expect(router.inline(j)).toBe(false);
      const out = await router.render(j);
      expect(workers.seen).toEqual(['w.yaml']);
      expect(out.objects[0]?.metadata?.name).toBe('inst-all');
      // A batch with one such template goes to a worker whole, in one job.
      await router.renderAll({
        parameters: params,
        scalars,
        maxOutputChars: 1 << 20,
        templates: [
          { key: 'test/ok.yaml', template: 'ok.yaml', text: HEAD },
          { key: 'test/w.yaml', template: 'w.yaml', text },
        ],
      });
      expect(workers.seen).toEqual(['w.yaml', 'ok.yaml+w.yaml']);
    },
  );

  it('sends a hostile template to a worker, where its limit ends it; bounded ones go on inline', async () => {
    const { pool, workers, router } = setup();
    const grow = job(
      'grow.yaml',
      `{{ $x := list }}{{ range until 100000000 }}{{ $x = append $x "aaaaaaaaaaaaaaaa" }}{{ end }}${HEAD}`,
    );
    const huge = job('repeat.yaml', `${HEAD}data:\n  x: {{ repeat 60000000 "xxxxxxxx" }}\n`);
    for (const hostile of [grow, huge]) {
      const err = await failure(router.render(hostile));
      expect(err.message).toMatch(
        new RegExp(
          `^template ${hostile.template.replace('.', '\\.')}(: ran out of memory|: did not finish|: rendering produced a string longer|.*: output exceeds|.*: error calling repeat: its result has 480000000 characters)`,
        ),
      );
      if (hostile === grow) expect(err).toBeInstanceOf(RenderLimitError);
    }
    expect(workers.seen).toEqual(['grow.yaml', 'repeat.yaml']);
    const ok = await router.render(job('fields.yaml', BOUNDED['fields.yaml']!, withMissingOk));
    expect(ok.objects).toHaveLength(1);
    expect(workers.seen).toHaveLength(2);
    expect(pool.workers).toBeLessThanOrEqual(1);
  });

  it('renders every bounded template of the shared KUDO packages inline as a worker does', async () => {
    const { pool, router } = setup();
    let bounded = 0;
    for (const name of ['first-operator', 'redis', 'mysql', 'zookeeper', 'cowsay']) {
      const dir = join(KUDO_PACKAGES_DIR, name);
      const operator = parse(readFileSync(join(dir, 'operator.yaml'), 'utf8')) as {
        tasks?: { spec?: { resources?: string[]; pod?: string } }[];
      };
      const parameters = packageDefaults(dir);
      const used = new Set(
        (operator.tasks ?? []).flatMap((t) => [...(t.spec?.resources ?? []), t.spec?.pod ?? '']),
      );
      for (const file of used) {
        if (!file) continue;
        const text = readFileSync(join(dir, 'templates', file), 'utf8');
        const j = job(`${name}/${file}`, text, parameters);
        if (!router.inline(j)) continue;
        bounded++;
        const here = await router.render(j).then(
          (o) => JSON.stringify(o),
          (e: Error) => `${e.constructor.name}: ${e.message}`,
        );
        const there = await pool.render(j).then(
          (o) => JSON.stringify(o),
          (e: Error) => `${e.constructor.name}: ${e.message}`,
        );
        expect(here).toBe(there);
      }
    }
    expect(bounded).toBeGreaterThan(10);
  });
});
