// `npm start` as a user runs it: the real entry point in a child process.
import { describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { READY_TIMEOUT_MS, WORKLOADS_READY_STEPS } from '../../../src/localcluster/index.ts';
import { cacheRoot } from '../../../src/localcluster/paths.ts';
import { kubectl, mintUser } from '../../support/cluster.ts';
import { installKudoCrds } from '../../support/kudo.ts';
import { waitFor } from '../../support/wait.ts';

interface Run {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv): Run {
  const child = spawn(
    process.execPath,
    ['--import', './scripts/register-ts.mjs', 'src/main.ts', 'start', ...args],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  child.stdout?.on('data', (c: Buffer) => (run.stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (run.stderr += c.toString()));
  return run;
}

/** What `npm start` allows its local control plane: every readiness step its full time. */
const LOCAL_START_MS = WORKLOADS_READY_STEPS * READY_TIMEOUT_MS;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start', () => {
  it('with a reachable kubeconfig, prints the server version, runs Planwright until SIGTERM and exits 0', async () => {
    // A user without rights: the version check passes, the manager runs but can neither list
    // nor lead, so it touches nothing of the other tests on this shared cluster.
    await installKudoCrds();
    const user = await mintUser('start-test');
    const run = start(['--kubeconfig', user.kubeconfigPath, '--webhook-port', '0'], process.env);
    // A hang guard (npm start runs the sources, transformed as they load): seconds on a quiet
    // machine, far longer on a busy one.
    await waitFor('Planwright to run', () => run.stderr.includes('Planwright is running'), {
      timeoutMs: 180_000,
    });
    expect(run.stdout).toMatch(/Server version: v1\.34\.\d+/);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('with a kubeconfig that does not exist, names it and exits 255', async () => {
    const run = start([], { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(await run.exited).toBe(255);
    expect(run.stderr).toContain(
      'Error: kubeconfig /nonexistent/kubeconfig (from KUBECONFIG) does not exist',
    );
  });

  it(
    'without any kubeconfig, runs the local control plane until SIGINT and then cleans up',
    async () => {
      const home = await mkdtemp(join(tmpdir(), 'pw-home-'));
      // A fresh HOME has no ~/.kube/config; keep the binary cache of this run, though.
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        HOME: home,
        PLANWRIGHT_CACHE_DIR: cacheRoot(),
      };
      delete env['KUBECONFIG'];
      delete env['KUBERNETES_SERVICE_HOST'];
      const run = start([], env);
      await waitFor(
        'the local control plane to be announced',
        () => run.stdout.includes('Ctrl-C'),
        {
          timeoutMs: LOCAL_START_MS,
        },
      );
      const kubeconfig = /export KUBECONFIG=(\S+)/.exec(run.stdout)?.[1] ?? '';
      // The hints use the CLI and the example packages of the repository.
      expect(run.stdout).toMatch(
        /kubectl kudo install \S+\/examples\/hello-web --instance hello --wait/,
      );
      expect(run.stdout).not.toContain('../shared');
      const res = await kubectl(['get', 'namespace', 'default', '-o', 'name'], { kubeconfig });
      expect(res.stdout.trim()).toBe('namespace/default');
      const pids = (await import('node:child_process'))
        .execFileSync('pgrep', ['-f', kubeconfig.replace(/\/admin\.kubeconfig$/, '')], {
          encoding: 'utf8',
        })
        .trim()
        .split('\n')
        .map(Number);
      expect(pids.length).toBeGreaterThanOrEqual(2);

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(run.stderr).toContain('Stopped.');
      for (const pid of pids) expect(alive(pid)).toBe(false);
      // Jest's limit is a hang guard: the start's own bound, then the checks and the stop.
    },
    LOCAL_START_MS + 60_000,
  );
});
