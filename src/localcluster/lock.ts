import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A cross-process lock held as a directory (mkdir is atomic). The owner's pid is written
 * inside so that a lock left by a killed process is recognised and taken over.
 *
 * Parallel jest workers and concurrent `npm start`s use it so a binary is built once.
 */
export async function withDirectoryLock<T>(
  lockDir: string,
  options: { onWait?: (ownerPid: number) => void; signal?: AbortSignal },
  body: () => Promise<T>,
): Promise<T> {
  let waitingReported = false;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      await mkdir(lockDir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = await readOwner(lockDir);
      if (owner !== undefined && !isAlive(owner)) {
        // The owner died mid-build; its partial output is discarded by the caller's atomic
        // rename, so taking the lock over is safe.
        await rm(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!waitingReported && owner !== undefined) {
        options.onWait?.(owner);
        waitingReported = true;
      }
      await sleep(500, undefined, { signal: options.signal });
    }
  }
  await writeFile(join(lockDir, 'pid'), String(process.pid));
  try {
    return await body();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

async function readOwner(lockDir: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(join(lockDir, 'pid'), 'utf8'), 10);
    return Number.isFinite(pid) ? pid : undefined;
  } catch {
    // Created but pid not written yet: treat as alive, retry shortly.
    return undefined;
  }
}

/** Whether a process with this pid exists (signal 0 probes without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
