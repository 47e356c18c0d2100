// The process metrics: prom-client's default set, the event loop measured at scrape time
// (no event-loop-delay histogram, whose timer would wake an idle process).
import { describe, expect, it } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { collectProcessMetrics } from '../../../src/runtime/index.ts';

function value(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`${name} missing from:\n${text}`);
  return Number(m[1]);
}

describe('collectProcessMetrics', () => {
  it("serves prom-client's process metrics and the event loop's lag and utilization", async () => {
    const registry = new Registry();
    collectProcessMetrics(registry);
    const first = await registry.metrics();
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'process_open_fds',
      'nodejs_heap_size_used_bytes',
      'nodejs_active_handles_total',
    ]) {
      expect(value(first, name)).toBeGreaterThanOrEqual(0);
    }
    expect(first).toMatch(/^nodejs_version_info\{/m);
    expect(first).toMatch(/^# TYPE nodejs_gc_duration_seconds histogram$/m);
    // The timer-driven delay histogram is not there.
    expect(first).not.toMatch(/nodejs_eventloop_lag_p99_seconds/);
    const lag = value(first, 'nodejs_eventloop_lag_seconds');
    expect(lag).toBeGreaterThan(0);
    expect(lag).toBeLessThan(60);

    // Utilization since the previous scrape: a loop kept busy between scrapes shows it.
    const spinUntil = Date.now() + 300;
    while (Date.now() < spinUntil) {
      // busy on purpose
    }
    const busy = value(await registry.metrics(), 'nodejs_eventloop_utilization_ratio');
    expect(busy).toBeGreaterThan(0.5);
    expect(busy).toBeLessThanOrEqual(1);
    // The next scrape covers only the time since this one. How busy the loop is while the test
    // waits depends on what else runs in this process (jest runs test files in-band), so the
    // figure is compared with the loop's own count over the same wait, not with a constant.
    const start = performance.eventLoopUtilization();
    // A second: the few ms between the previous scrape and `start` (when the two windows
    // differ) weigh little even when a busy machine stretches them.
    await new Promise((r) => setTimeout(r, 1_000));
    const own = performance.eventLoopUtilization(performance.eventLoopUtilization(), start);
    const since = value(await registry.metrics(), 'nodejs_eventloop_utilization_ratio');
    expect(Math.abs(since - own.utilization)).toBeLessThan(0.15);
  });
});
