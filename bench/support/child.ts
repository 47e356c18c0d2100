// A child process whose output the bench keeps (the tail) for when something goes wrong.
import { spawn, type ChildProcess } from 'node:child_process';

export interface LoggedChild {
  readonly proc: ChildProcess;
  readonly pid: number;
  /** The last 20,000 characters it wrote to stdout and stderr. */
  log(): string;
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export function spawnLogged(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): LoggedChild {
  const proc = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const collect = (c: Buffer): void => {
    log = (log + c.toString()).slice(-20_000);
  };
  proc.stdout.on('data', collect);
  proc.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => {
    proc.once('exit', resolve);
    proc.once('error', (err) => {
      log += `\n${err.message}`;
      resolve(null);
    });
  });
  if (proc.pid === undefined) throw new Error(`cannot start ${command}`);
  return {
    proc,
    pid: proc.pid,
    log: () => log,
    exited,
    async stop(graceMs = 10_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
