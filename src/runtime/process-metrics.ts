/**
 * The Node.js process metrics (`process_*`, `nodejs_*`) of prom-client's
 * `collectDefaultMetrics`, with the event-loop figures measured without a timer.
 *
 * prom-client's event-loop collector enables `perf_hooks.monitorEventLoopDelay`, a libuv
 * timer that wakes the process at its resolution (10 ms by default, 6,000 wakeups a minute;
 * still 60 at 1 s) for as long as it runs. An idle operator should not tick. So every other
 * default collector runs as prom-client ships it, and the event loop is measured when
 * scraped, from what libuv counts anyway:
 *
 * * `nodejs_eventloop_lag_seconds` — how long a callback queued by the scrape waited (the
 *   same gauge, and the same way, as prom-client without `monitorEventLoopDelay`);
 * * `nodejs_eventloop_utilization_ratio` — the share of time the loop was busy since the
 *   previous scrape (`performance.eventLoopUtilization`: a loop saturated by work shows
 *   as 1, whatever its individual delays).
 *
 * The collectors are imported from prom-client's `lib/metrics/` one by one (the package has
 * no `exports` map; the version is pinned by the lockfile), by name, so that the bundler
 * (scripts/build.mjs) includes them and a name missing there fails the build.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';
import gc from 'prom-client/lib/metrics/gc.js';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';

/** prom-client's default collectors, `eventLoopLag` left out (see above). */
const COLLECTORS = [
  processCpuTotal,
  processStartTime,
  osMemoryHeap,
  processOpenFileDescriptors,
  processMaxFileDescriptors,
  processResources,
  processHandles,
  processRequests,
  heapSizeAndUsed,
  heapSpacesSizeAndUsed,
  version,
  gc,
] as const;

export function collectProcessMetrics(registry: Registry): void {
  for (const collector of COLLECTORS) collector(registry, {});
  const registers = [registry];
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds (how long a callback queued at scrape time waited).',
    registers,
    async collect() {
      const queued = performance.now();
      await new Promise((resolve) => setImmediate(resolve));
      this.set((performance.now() - queued) / 1_000);
    },
  });
  let previous: EventLoopUtilization | undefined;
  new Gauge({
    name: 'nodejs_eventloop_utilization_ratio',
    help: 'Share of time the event loop was busy since the previous scrape (0 to 1).',
    registers,
    collect() {
      const now = performance.eventLoopUtilization();
      const since = previous ? performance.eventLoopUtilization(now, previous) : now;
      this.set(since.utilization);
      previous = now;
    },
  });
}
