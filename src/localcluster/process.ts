import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ComponentName } from './errors.ts';

/** A control-plane child process running in its own process group. */
export interface ManagedProcess {
  readonly pid: number;
  readonly name: ComponentName;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  hasExited(): boolean;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** Whether util-linux `setpriv` can set a parent-death signal here (it is on Debian). */
const setprivAvailable: boolean = (() => {
  const probe = spawnSync('setpriv', ['--help'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.includes('--pdeathsig');
})();

/**
 * Starts `binary` detached in a new process group, in the folder of `logFile`, output appended
 * to `logFile`.
 *
 * Why the extra care: a test run can be SIGKILLed or time out, and etcd / kube-apiserver
 * must not outlive it. The child gets SIGKILL as its parent-death signal (`setpriv
 * --pdeathsig`), so it dies with this process whatever the way; normal stops go through
 * `stop()`, which signals the whole group.
 */
export function startProcess(
  name: ComponentName,
  binary: string,
  args: readonly string[],
  logFile: string,
  env?: NodeJS.ProcessEnv,
): ManagedProcess {
  const log: WriteStream = createWriteStream(logFile, { flags: 'a' });
  const [command, argv] = setprivAvailable
    ? ['setpriv', ['--pdeathsig', 'SIGKILL', '--', binary, ...args]]
    : [binary, [...args]];
  const child: ChildProcess = spawn(command, argv, {
    detached: true,
    // In its cluster's folder (where its log is): a process left running is found by its
    // working directory even when nothing on its command line names the folder.
    cwd: dirname(logFile),
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  let exitedFlag = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', (err) => {
      log.write(`\n[planwright] failed to start ${binary}: ${err.message}\n`);
      exitedFlag = true;
      resolve(-1);
    });
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      resolve(code ?? signal ?? -1);
    });
  }).finally(() => log.end());
  const pid = child.pid ?? -1;
  return {
    pid,
    name,
    logFile,
    exited,
    hasExited: () => exitedFlag,
    async stop(graceMs = 5_000): Promise<void> {
      if (exitedFlag || pid <= 0) return;
      killGroup(pid, 'SIGTERM');
      const timedOut = await Promise.race([
        exited.then(() => false),
        sleep(graceMs, true, { ref: false }),
      ]);
      if (timedOut) {
        killGroup(pid, 'SIGKILL');
        await exited;
      }
    },
  };
}

/** Signals a whole process group; a group already gone is fine. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** The last `lines` lines of a log file, for error messages. */
export async function tailFile(path: string, lines = 30): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
