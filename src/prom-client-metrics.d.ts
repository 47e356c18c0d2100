// prom-client ships its default collectors as CommonJS files without declarations
// (src/runtime/process-metrics.ts imports them one by one). Each exports one function.
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';

  const collector: (registry: Registry, config: Record<string, unknown>) => void;
  export default collector;
}
