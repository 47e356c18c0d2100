// The built kubectl-kudo writing into a pipe whose reader is already gone (`… | head -1` after
// head exited): every write fails with EPIPE, and the command must still end quietly — no
// unhandled 'error' event, no stack trace, its own exit code — as a Go CLI ended by SIGPIPE.
// And with a reader that keeps reading, all of the output arrives before the process exits.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { KUDO_PACKAGES_DIR } from '../../support/shared.ts';
import { ensureBuiltCli, KUBECTL_KUDO, runBuilt } from './built-cli.ts';

const ZK = join(KUDO_PACKAGES_DIR, 'zookeeper');

/** Runs the CLI with stdout's read end closed before the child writes anything. */
function runIntoClosedPipe(
  args: readonly string[],
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KUBECTL_KUDO, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: '/nonexistent-home' },
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

describe('kubectl kudo in a pipe', () => {
  beforeAll(() => ensureBuiltCli(), 600_000);

  it.each([
    [['package', 'list', 'plans', ZK]],
    [['package', 'list', 'plans', ZK, '--with-tasks']],
    [['package', 'list', 'parameters', ZK, '-d']],
    [['package', 'list', 'tasks', ZK]],
    [['package', 'verify', ZK]],
    [['version']],
    [['--help']],
  ])('%j ends quietly with exit 0 when the reader has gone', async (args) => {
    const result = await runIntoClosedPipe(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('keeps its own exit code and error message when stdout is gone', async () => {
    const result = await runIntoClosedPipe(['package', 'list', 'plans', '/nonexistent/op']);
    expect(result.code).toBe(255);
    expect(result.stderr).toMatch(/^Error: failed to resolve package files for operator: /);
    expect(result.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
  });

  it('delivers the whole output to a reader that keeps reading', async () => {
    const result = await runBuilt(KUBECTL_KUDO, ['package', 'list', 'plans', ZK, '--with-tasks']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('plans');
    expect(lines.at(-2)).toBe('');
    const count = (tag: string): number => lines.filter((l) => l.includes(tag)).length;
    expect([count('[apply]'), count('[delete]'), count('[dummy]')]).toEqual([4, 2, 1]);
    expect(lines.at(-3)).toBe('                └── validation.yaml');
  });
});
