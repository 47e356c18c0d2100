import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withDirectoryLock } from '../../../src/localcluster/lock.ts';

describe('withDirectoryLock', () => {
  it('runs holders one at a time and releases the lock afterwards', async () => {
    const lock = join(await mkdtemp(join(tmpdir(), 'pw-lock-')), 'lock');
    const order: string[] = [];
    const holder = (id: string) =>
      withDirectoryLock(lock, {}, async () => {
        order.push(`${id}:in`);
        await sleep(50);
        order.push(`${id}:out`);
      });
    await Promise.all([holder('a'), holder('b'), holder('c')]);
    // No interleaving: every "in" is followed by its own "out".
    for (let i = 0; i < order.length; i += 2) {
      expect(order[i]?.split(':')[0]).toBe(order[i + 1]?.split(':')[0]);
    }
    expect(order).toHaveLength(6);
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose owner process is dead', async () => {
    const lock = join(await mkdtemp(join(tmpdir(), 'pw-lock-')), 'lock');
    // A pid that existed and is gone: a finished child.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid ?? 0;
    await mkdir(lock);
    await writeFile(join(lock, 'pid'), String(dead));
    const result = await withDirectoryLock(lock, {}, () => Promise.resolve('ran'));
    expect(result).toBe('ran');
  });

  it('waits for a live owner and reports it', async () => {
    const lock = join(await mkdtemp(join(tmpdir(), 'pw-lock-')), 'lock');
    await mkdir(lock);
    await writeFile(join(lock, 'pid'), String(process.pid));
    const waitedFor: number[] = [];
    const controller = new AbortController();
    const attempt = withDirectoryLock(
      lock,
      { onWait: (pid) => waitedFor.push(pid), signal: controller.signal },
      () => Promise.resolve('never'),
    );
    await sleep(100);
    controller.abort();
    await expect(attempt).rejects.toThrow(/abort/i);
    expect(waitedFor).toEqual([process.pid]);
  });
});
