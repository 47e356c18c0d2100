// The process's one signal handler: the first signal aborts the root signal, the second forces
// the exit with 130; disposing removes the listeners.
import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { EXIT_FORCED, shutdownSignal } from '../../../src/cli/signals.ts';

describe('shutdownSignal', () => {
  it('aborts on the first SIGTERM/SIGINT, forces exit on the second, and can be removed', () => {
    const proc = new EventEmitter();
    const lines: string[] = [];
    const exits: number[] = [];
    const shutdown = shutdownSignal(
      (line) => lines.push(line),
      proc as unknown as NodeJS.Process,
      (code) => exits.push(code),
    );
    expect(shutdown.signal.aborted).toBe(false);
    proc.emit('SIGTERM', 'SIGTERM');
    expect(shutdown.signal.aborted).toBe(true);
    expect((shutdown.signal.reason as Error).message).toBe('SIGTERM received');
    expect(exits).toEqual([]);
    proc.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([EXIT_FORCED]);
    expect(lines.join('\n')).toMatch(/SIGINT received again: exiting now/);
    shutdown.dispose();
    expect(proc.listenerCount('SIGTERM')).toBe(0);
    expect(proc.listenerCount('SIGINT')).toBe(0);
  });
});
