// Benchmark: rendering a KUDO template on the calling thread (InlineRenderer), through the
// render pool (worker processes) and through the RoutingRenderer the controller uses (bounded
// templates inline, the rest in the pool), side by side in one run: latency of one render, throughput with 8 renders in flight, and the event loop's delay
// meanwhile (what the webhooks and the Lease would feel). Parse caching is on in both: the
// same template key is rendered again and again. Not a test. Run from the repo root:
//   node --import ./scripts/register-ts.mjs bench/render-pool.ts

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { InlineRenderer, type Renderer, type RenderJob } from '../src/kudo/render/index.ts';
import { RoutingRenderer, RenderPool } from '../src/kudo/pool/index.ts';
import { sharedDir } from '../test/gotemplate/oracle.ts';

const text = readFileSync(
  join(sharedDir, 'kudo-packages', 'zookeeper', 'templates', 'statefulset.yaml'),
  'utf8',
);
const params: Record<string, string> = {
  NODE_COUNT: '3',
  MEMORY: '1024Mi',
  MEM_LIMIT: '2048Mi',
  CPUS: '250m',
  CPUS_LIMIT: '1000m',
  STORAGE_CLASS: '',
  DISK_SIZE: '5Gi',
  CLIENT_PORT: '2181',
  SERVER_PORT: '2888',
  ELECTION_PORT: '3888',
  METRICS_PORT: '7000',
  IMAGE_PULL_POLICY: 'Always',
  ZOOKEEPER_IMAGE: 'zookeeper:3.6.2',
  CONFIG: 'a: [1, 2]\nb: {c: d}',
};
const job: RenderJob = {
  key: 'bench/zookeeper/statefulset.yaml',
  template: 'statefulset.yaml',
  text,
  parameters: Object.entries(params).map(([name, raw]) => ({
    name,
    type: name === 'CONFIG' ? 'map' : 'string',
    raw,
  })),
  scalars: {
    Name: 'zk',
    Namespace: 'default',
    OperatorName: 'zookeeper',
    OperatorVersion: '0.3.0',
    AppVersion: '3.6.2',
    PlanName: 'deploy',
    PhaseName: 'zookeeper',
    StepName: 'deploy',
  },
  maxOutputChars: 4 << 20,
};
const N = Number(process.env['RENDERS'] ?? 2000);

interface Figures {
  readonly serialUs: number;
  readonly parallelPerSec: number;
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
}

async function measure(renderer: Renderer): Promise<Figures> {
  for (let i = 0; i < 200; i++) await renderer.render(job); // warm up (and start workers)
  let t0 = performance.now();
  for (let i = 0; i < N / 4; i++) await renderer.render(job);
  const serialUs = ((performance.now() - t0) * 1000) / (N / 4);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < N) {
        next += 1;
        await renderer.render(job);
        // Let timers and I/O run between renders, as the controller's event loop would.
        await new Promise((r) => setImmediate(r));
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  loop.disable();
  return {
    serialUs,
    parallelPerSec: N / seconds,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
  };
}

const inline = await measure(new InlineRenderer());
const pool = new RenderPool({
  name: 'bench',
  size: 2,
  deadlineMs: 10_000,
  maxHeapMb: 256,
  logger: pino({ level: 'warn' }),
});
const pooled = await measure(pool);
await pool.stop();
const routingPool = (deadlineMs: number): RenderPool =>
  new RenderPool({
    name: 'bench',
    size: 2,
    deadlineMs,
    maxHeapMb: 256,
    logger: pino({ level: 'warn' }),
  });
const pool3 = routingPool(10_000);
const routed = await measure(new RoutingRenderer({ workers: pool3 }));
const routedWorkers = pool3.workers;
await pool3.stop();

// A template that runs for a while (a long range): inline it blocks the event loop for its
// whole duration; in the pool the loop does not notice.
const heavy: RenderJob = {
  ...job,
  key: 'bench/heavy',
  template: 'heavy.yaml',
  text: '{{ range until 300 }}{{ range until 1000 }}{{ end }}{{ end }}# done\n',
};
/** The longest gap between 5 ms ticks while `heavy` renders: how long the loop was stuck. */
async function heavyLoopMax(renderer: Renderer): Promise<number> {
  await renderer.render({ ...job }); // workers started
  let last = performance.now();
  let worst = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  await new Promise((r) => setTimeout(r, 20));
  await renderer.render(heavy);
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(ticker);
  return worst;
}
const heavyInline = await heavyLoopMax(new InlineRenderer());
const pool2 = new RenderPool({
  name: 'bench',
  size: 2,
  deadlineMs: 30_000,
  maxHeapMb: 256,
  logger: pino({ level: 'warn' }),
});
const heavyPooled = await heavyLoopMax(pool2);
await pool2.stop();
const pool4 = routingPool(30_000);
const heavyRouted = await heavyLoopMax(new RoutingRenderer({ workers: pool4 }));
await pool4.stop();

const row = (name: string, f: Figures): string =>
  `| ${name.padEnd(22)} | ${f.serialUs.toFixed(0).padStart(10)} | ${f.parallelPerSec.toFixed(0).padStart(12)} | ${f.loopP99Ms.toFixed(1).padStart(12)} | ${f.loopMaxMs.toFixed(1).padStart(12)} |`;
console.log(`template: zookeeper/templates/statefulset.yaml (${text.length} bytes), ${N} renders`);
console.log('| renderer               | 1 render µs | renders/s (8) | loop p99 ms | loop max ms |');
console.log('|------------------------|------------:|--------------:|------------:|------------:|');
console.log(row('inline (event loop)', inline));
console.log(row('pool (2 processes)', pooled));
console.log(row('routing (bounded: here)', routed));
console.log(
  `\nrouting: ${routedWorkers} worker processes started for the bounded template\nheavy template (300,000 range iterations): event loop blocked up to ${heavyInline.toFixed(0)} ms inline, ${heavyPooled.toFixed(1)} ms with the pool, ${heavyRouted.toFixed(1)} ms routed (to the pool)`,
);
