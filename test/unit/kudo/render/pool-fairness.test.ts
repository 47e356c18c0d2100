// The render pool is fair between namespaces (real worker processes): a namespace whose
// templates each spin until their deadline never holds every worker, and with one worker the
// namespaces take turns — another namespace's render runs before the spinning namespace's
// backlog, not after it.
import { afterAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { RenderJob } from '../../../../src/kudo/render/index.ts';
import { RenderLimitError, RenderPool } from '../../../../src/kudo/pool/index.ts';
import { job, scalars } from './jobs.ts';
import { TEST_PRIORITY } from './jobs.ts';

const logger = pino({ level: 'silent' });
// Spins without growing memory: only the deadline ends it.
const SPIN =
  '{{ range until 1000 }}{{ range until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}{{ end }}';
const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\n';

function inNamespace(namespace: string, template: string, text: string): RenderJob {
  return { ...job(template, text), scalars: { ...scalars, Namespace: namespace } };
}

/** Renders `jobs` at once; the names of the templates in the order their renders settled. */
async function settleOrder(pool: RenderPool, jobs: readonly RenderJob[]): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(
    jobs.map((j) =>
      pool.render(j).then(
        () => order.push(`${j.template} rendered`),
        (err: unknown) =>
          order.push(`${j.template} ${err instanceof RenderLimitError ? err.limit : 'failed'}`),
      ),
    ),
  );
  return order;
}

describe('RenderPool fairness between namespaces', () => {
  const pools: RenderPool[] = [];
  const pool = (size: number, deadlineMs: number): RenderPool => {
    const p = new RenderPool({
      ...TEST_PRIORITY,
      name: 'test',
      size,
      deadlineMs,
      maxHeapMb: 64,
      logger,
    });
    pools.push(p);
    return p;
  };
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.stop()));
  });

  it('leaves a worker to other namespaces while one namespace spins in the rest', async () => {
    // Long deadlines: the spinning renders are still running when the bystander's is done.
    const p = pool(2, 60_000);
    const spinning = [1, 2, 3].map((i) =>
      p.render(inNamespace('hostile', `spin${i}.yaml`, SPIN)).then(
        () => 'rendered',
        (err: unknown) => (err instanceof RenderLimitError ? err.limit : String(err)),
      ),
    );
    const settled: string[] = [];
    for (const [i, s] of spinning.entries()) void s.then(() => settled.push(`spin${i + 1}`));
    const out = await p.render(inNamespace('bystander', 'cm.yaml', CONFIGMAP));
    expect(out.objects).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inst' } },
    ]);
    // First come, first served, the first two spinning renders would hold both workers and the
    // bystander would wait for one of them to reach its deadline.
    expect(settled).toEqual([]);
    expect(p.workers).toBe(2);
    await p.stop();
    expect(await Promise.all(spinning)).toEqual([
      expect.stringMatching(/stopped/),
      expect.stringMatching(/stopped/),
      expect.stringMatching(/stopped/),
    ]);
  });

  it('with one worker, lets another namespace render between the spinning namespace’s renders', async () => {
    const p = pool(1, 1_000);
    const jobs = [
      inNamespace('hostile', 'spin1.yaml', SPIN),
      inNamespace('hostile', 'spin2.yaml', SPIN),
      inNamespace('bystander', 'cm.yaml', CONFIGMAP),
    ];
    // First come, first served, it would be spin1, spin2, then cm.
    expect(await settleOrder(p, jobs)).toEqual([
      'spin1.yaml deadline',
      'cm.yaml rendered',
      'spin2.yaml deadline',
    ]);
  });
});
