// Child processes of the runner: their output line by line behind a `[name]` prefix (several
// run at once into one log), and every one of them stopped when the runner is.
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';

const running = new Set<ChildProcess>();

/** Stops every child still running (SIGTERM to its process group). */
export function stopChildren(): void {
  for (const child of running) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** CPU niceness of the child and of what it starts (they inherit it); default 0. */
  readonly niceness?: number;
}

/** Writes `text` line by line, each behind `[prefix] `. */
export function prefixed(prefix: string, stream: NodeJS.ReadableStream): Promise<void> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (line) => void process.stdout.write(`[${prefix}] ${line}\n`));
  return new Promise((resolve) => lines.once('close', resolve));
}

/**
 * Runs a command to its end with its output prefixed; resolves with its exit code (a signal
 * counts as failure). Each child leads its own process group, so stopChildren() reaches what
 * it started too.
 */
export async function run(
  prefix: string,
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<number> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  if (options.niceness && child.pid !== undefined) {
    try {
      setPriority(child.pid, options.niceness);
    } catch {
      // Not permitted here: it runs at the runner's priority.
    }
  }
  const output = Promise.all([prefixed(prefix, child.stdout), prefixed(prefix, child.stderr)]);
  const code = await new Promise<number>((resolve) => {
    child.once('error', (err) => {
      process.stdout.write(`[${prefix}] could not start ${command}: ${err.message}\n`);
      resolve(127);
    });
    child.once('close', (status) => resolve(status ?? 1));
  });
  running.delete(child);
  await output;
  return code;
}
