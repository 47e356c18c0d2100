// CPU time and memory of a process and its descendants, from /proc (Linux). A manager is its
// whole process tree: Planwright's render pool runs in worker processes of its own.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS =
  Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime, seconds. */
  readonly cpu: number;
  /** cutime + cstime, seconds: children that exited and were waited for. */
  readonly childrenCpu: number;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
  // The command name (field 2) may hold spaces and parentheses: split after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (i: number): number => Number(fields[i - 3] ?? 0);
  return {
    pid,
    ppid: n(4),
    cpu: (n(14) + n(15)) / CLOCK_TICKS,
    childrenCpu: (n(16) + n(17)) / CLOCK_TICKS,
  };
}

/** user + system CPU seconds of one process (not its children), 0 when it is gone. */
export function cpuSecondsOf(pid: number): number {
  return readStat(pid)?.cpu ?? 0;
}

/**
 * CPU seconds of this process's children that exited and were waited for (a `spawnSync`'s
 * child is, once it returns): the difference around one gives that child's CPU.
 */
export function reapedChildrenCpuSeconds(): number {
  return readStat(process.pid)?.childrenCpu ?? 0;
}

/** Resident set size in bytes (VmRSS), 0 when the process is gone. */
export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Peak resident set size of one process so far (VmHWM), 0 when it is gone. */
export function peakRssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The process and every live descendant, except `exclude` and theirs. */
function tree(root: number, exclude: ReadonlySet<number>): ProcStat[] {
  const all = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) all.set(stat.pid, stat);
  }
  const rootStat = all.get(root);
  if (!rootStat) return [];
  const members = [rootStat];
  for (let i = 0; i < members.length; i++) {
    const parent = members[i]?.pid;
    for (const s of all.values()) if (s.ppid === parent && !exclude.has(s.pid)) members.push(s);
  }
  return members;
}

/**
 * Voluntary context switches of every thread of `pid` now, by thread id: each one is a
 * thread going to sleep (epoll_wait, futex, nanosleep, a blocking read), so between two
 * readings the count is how many times the process woke up and went back to sleep.
 */
function voluntarySwitches(pid: number): Map<number, number> {
  const byThread = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byThread; // gone meanwhile
  }
  for (const tid of tids) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      byThread.set(Number(tid), Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // the thread ended meanwhile
    }
  }
  return byThread;
}

/** A point-in-time reading of a process tree. */
export interface TreeSample {
  /** CPU seconds so far: the tree's own, plus its exited (reaped) children's. */
  readonly cpuSeconds: number;
  /** CPU seconds so far of the root process alone (its own threads, no children). */
  readonly mainCpuSeconds: number;
  /** Sum of the members' VmRSS, bytes. */
  readonly rss: number;
  readonly processes: number;
}

/**
 * Reads the tree of `root` now. `exclude`: children that are not part of what is measured
 * (the local control plane a bench process started, next to the manager it runs in-process).
 */
export function sampleTree(root: number, exclude: ReadonlySet<number> = new Set()): TreeSample {
  const members = tree(root, exclude);
  let cpu = 0;
  let rss = 0;
  for (const m of members) {
    cpu += m.cpu;
    rss += rssOf(m.pid);
  }
  cpu += members[0]?.childrenCpu ?? 0;
  return { cpuSeconds: cpu, mainCpuSeconds: members[0]?.cpu ?? 0, rss, processes: members.length };
}

/**
 * Samples a process tree every `intervalMs` until stopped: peak RSS (of the sum; a sampled
 * peak, so a spike shorter than the interval can be missed), CPU seconds and wakeups
 * (voluntary context switches of every thread, summed per thread between samples so threads
 * and processes that end keep what they counted; a process born and gone between two samples
 * is missed) at any time.
 */
export class TreeSampler {
  private peak = 0;
  private peakProcesses = 0;
  private wakeupCount = 0;
  private mainWakeupCount = 0;
  private switches = new Map<number, number>();
  private last: TreeSample;
  private readonly timer: NodeJS.Timeout;
  private readonly exclude: ReadonlySet<number>;

  constructor(
    readonly pid: number,
    options: { readonly intervalMs?: number; readonly exclude?: readonly number[] } = {},
  ) {
    this.exclude = new Set(options.exclude);
    this.last = sampleTree(pid, this.exclude);
    this.peak = this.last.rss;
    this.countWakeups();
    this.timer = setInterval(() => this.sample(), options.intervalMs ?? 250);
  }

  sample(): TreeSample {
    const s = sampleTree(this.pid, this.exclude);
    this.countWakeups();
    // A tree that has exited reads as empty: keep the last real reading.
    if (s.processes > 0) this.last = s;
    if (s.rss > this.peak) {
      this.peak = s.rss;
      this.peakProcesses = s.processes;
    }
    return this.last;
  }

  get peakRss(): number {
    return this.peak;
  }

  /** Wakeups of the tree's threads so far (see the class). */
  get wakeups(): number {
    return this.wakeupCount;
  }

  /** Wakeups of the root process's threads alone so far. */
  get mainWakeups(): number {
    return this.mainWakeupCount;
  }

  private countWakeups(): void {
    const now = new Map<number, number>();
    for (const member of tree(this.pid, this.exclude)) {
      for (const [tid, count] of voluntarySwitches(member.pid)) {
        now.set(tid, count);
        // A thread seen for the first time counts from its start.
        const delta = count - (this.switches.get(tid) ?? 0);
        if (delta <= 0) continue;
        this.wakeupCount += delta;
        if (member.pid === this.pid) this.mainWakeupCount += delta;
      }
    }
    this.switches = now;
  }

  /** How many processes the tree had when its RSS peaked. */
  get processesAtPeak(): number {
    return this.peakProcesses;
  }

  /** Forgets the peak so far (e.g. before a measured phase). */
  resetPeak(): void {
    this.peak = 0;
    this.sample();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
