// Preload for the manager's process (`node --import ./bench/support/heap-sampler.mjs ...`):
// what the bench cannot see from /proc. Writes to $HEAP_SAMPLER_DIR (required):
//  * gc.tsv: every HEAP_SAMPLER_TICK_MS (1000) ms the garbage collections since the last line
//    by kind (count and ms: scavenge, mark-compact, incremental, weak callbacks), heap used and
//    total, RSS — to see which GC runs when (the burst, the first idle minute); 0: none;
//  * alloc-<n>.heapprofile: V8's sampling heap profiler with objects collected by minor and
//    major GCs included, i.e. where the bytes were *allocated* (garbage included), not only
//    what survived; one file per SIGUSR2 (the profile since the last one) and one at exit.
//    Open in Chrome DevTools or summarise with bench/heapprofile-top.ts
//    (HEAP_SAMPLER_PROFILE=0: no profile, the GC counts only);
//  * mark-<n>.heapsnapshot at every SIGUSR2 with HEAP_SAMPLER_SNAPSHOT=1 (the live set there);
//  * marks.tsv: on every SIGUSR2 one line of the GC counts and times since the start, so a
//    bench can take the differences between the moments it marked.
// Not product code: a bench tool, as --cpu-prof is.
import { Session } from 'node:inspector';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { setImmediate, setInterval } from 'node:timers';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

const dir = process.env.HEAP_SAMPLER_DIR;
if (!dir) throw new Error('heap-sampler: set HEAP_SAMPLER_DIR');
const tickMs = Number(process.env.HEAP_SAMPLER_TICK_MS ?? 1000);
const interval = Number(process.env.HEAP_SAMPLER_INTERVAL ?? 32 * 1024);
const profile = process.env.HEAP_SAMPLER_PROFILE !== '0';

const KINDS = new Map([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'scavenge'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'markcompact'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);
const zero = () =>
  Object.fromEntries(
    [...KINDS.values()].flatMap((k) => [
      [k, 0],
      [`${k}_ms`, 0],
    ]),
  );
let tally = zero();
const since = zero();
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const k = KINDS.get(e.detail?.kind) ?? 'other';
    for (const t of [tally, since]) {
      t[k] = (t[k] ?? 0) + 1;
      t[`${k}_ms`] = (t[`${k}_ms`] ?? 0) + e.duration;
    }
  }
}).observe({ entryTypes: ['gc'] });
const gcFile = join(dir, `gc-${process.pid}.tsv`);
const cols = Object.keys(zero());
appendFileSync(
  gcFile,
  ['t_s', ...cols, 'heap_used_mb', 'heap_total_mb', 'rss_mb'].join('\t') + '\n',
);
const t0 = performance.now();
if (tickMs > 0)
  setInterval(() => {
    const m = process.memoryUsage();
    const row = [
      ((performance.now() - t0) / 1000).toFixed(1),
      ...cols.map((c) => (c.endsWith('_ms') ? tally[c].toFixed(1) : tally[c])),
    ];
    row.push(
      (m.heapUsed / 1e6).toFixed(1),
      (m.heapTotal / 1e6).toFixed(1),
      (m.rss / 1e6).toFixed(1),
    );
    appendFileSync(gcFile, row.join('\t') + '\n');
    tally = zero();
  }, tickMs).unref();

const marksFile = join(dir, `marks-${process.pid}.tsv`);
appendFileSync(marksFile, ['t_s', ...cols].join('\t') + '\n');
const snapshots = process.env.HEAP_SAMPLER_SNAPSHOT === '1';
let marks = 0;
process.on('SIGUSR2', () => {
  const row = [
    ((performance.now() - t0) / 1000).toFixed(1),
    ...cols.map((c) => since[c].toFixed(1)),
  ];
  appendFileSync(marksFile, row.join('\t') + '\n');
  // A snapshot (after a full GC: the live set) at every mark, written after the mark line so
  // a bench waiting for that line is not held up by it.
  if (snapshots) setImmediate(() => writeHeapSnapshot(join(dir, `mark-${marks++}.heapsnapshot`)));
});

if (profile) {
  const session = new Session();
  session.connect();
  const start = () =>
    session.post('HeapProfiler.startSampling', {
      samplingInterval: interval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  let n = 0;
  const dump = () => {
    session.post('HeapProfiler.stopSampling', (err, res) => {
      if (err) {
        appendFileSync(join(dir, 'error.txt'), String(err));
        return;
      }
      writeFileSync(
        join(dir, `alloc-${process.pid}-${n++}.heapprofile`),
        JSON.stringify(res.profile),
      );
    });
  };
  session.post('HeapProfiler.enable', () => start());
  process.on('SIGUSR2', () => {
    dump();
    start();
  });
  process.on('exit', dump);
}
