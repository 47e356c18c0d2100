// What the steps of a cluster start share: the processes it runs (and the record the next
// start's reaper reads), the stops of what it brought up, and its settings.
import type { ComponentName } from './errors.ts';
import type { ManagedProcess } from './process.ts';
import { recordCluster } from './registry.ts';
import type { StopStack } from './stop-stack.ts';
import type { NodeTraces } from './nodes/leftovers.ts';

export interface StartContext {
  readonly workDir: string;
  readonly processes: ClusterProcesses;
  readonly stops: StopStack;
  /** How long each readiness step may take. */
  readonly readyTimeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly progress: (line: string) => void;
}

/**
 * The processes of one cluster, oldest first, and its record under `<cache>/run/` (registry.ts).
 * Every process is recorded as soon as it is spawned, so a crash mid-start leaves a record the
 * next start can clean up.
 */
export class ClusterProcesses {
  private readonly running: ManagedProcess[] = [];
  /** Real nodes' traces; undefined when the cluster runs none. */
  private readonly realNodes: NodeTraces[] | undefined;

  /** `runc`: the runc that can kill the real nodes' containers, when the cluster has any. */
  constructor(
    private readonly id: string,
    private readonly workDir: string,
    private readonly runc: string | undefined,
  ) {
    this.realNodes = runc === undefined ? undefined : [];
  }

  async add(proc: ManagedProcess): Promise<void> {
    this.running.push(proc);
    await this.record();
  }

  /** Forgets a stopped process (the record is rewritten with the next `add`). */
  remove(proc: ManagedProcess): void {
    // A process already forgotten (a second restart after a failed one) stays forgotten:
    // splice(-1) would drop the newest process instead.
    const at = this.running.indexOf(proc);
    if (at >= 0) this.running.splice(at, 1);
  }

  /** Records where a real node leaves traces, before it starts leaving them. */
  async addRealNode(traces: NodeTraces): Promise<void> {
    this.realNodes?.push(traces);
    await this.record();
  }

  find(name: ComponentName): ManagedProcess | undefined {
    return this.running.find((p) => p.name === name);
  }

  newestFirst(): ManagedProcess[] {
    return [...this.running].reverse();
  }

  async stopAll(): Promise<void> {
    for (const p of this.newestFirst()) await p.stop();
  }

  private record(): Promise<void> {
    return recordCluster(this.id, {
      ownerPid: process.pid,
      workDir: this.workDir,
      pids: Object.fromEntries(this.running.map((p) => [p.name, p.pid])),
      // JSON leaves out what is undefined: a cluster without real nodes records neither.
      realNodes: this.realNodes,
      runc: this.runc,
    });
  }
}
