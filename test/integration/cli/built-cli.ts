/**
 * The CLI as users run it: the executables compiled into dist/ by `npm run build`. Tests run
 * them as child processes; this builds dist/ first when a source is newer than the last build
 * (under a lock, so parallel test files build once).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withDirectoryLock } from '../../../src/localcluster/lock.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';

const ROOT = repositoryRoot();
export const DIST = join(ROOT, 'dist');
export const KUBECTL_KUDO = join(DIST, 'cli', 'kubectl-kudo.js');
export const PLANWRIGHT = join(DIST, 'main.js');
const STAMP = join(DIST, '.built-by-tests');

async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, await newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

async function stale(): Promise<boolean> {
  if (!existsSync(STAMP) || !existsSync(KUBECTL_KUDO) || !existsSync(PLANWRIGHT)) return true;
  const built = statSync(STAMP).mtimeMs;
  const inputs = Math.max(
    await newestSource(join(ROOT, 'src')),
    statSync(join(ROOT, 'package.json')).mtimeMs,
    statSync(join(ROOT, 'scripts', 'build.mjs')).mtimeMs,
  );
  return inputs > built;
}

/**
 * Runs `node scripts/build.mjs` when dist/ is older than src/: the bundle of `npm run build`
 * without its type check, which `npm test`'s typecheck step does once for src and test
 * together (esbuild strips types; it never reads them).
 */
export async function ensureBuiltCli(): Promise<void> {
  if (!(await stale())) return;
  await withDirectoryLock(join(ROOT, '.dist-build.lock'), {}, async () => {
    if (!(await stale())) return;
    const started = Date.now();
    await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], {
      cwd: ROOT,
    });
    await writeFile(STAMP, `${new Date(started).toISOString()}\n`);
    // The build read the sources when it started: a source saved while it ran is newer than
    // the stamp, so the next test builds again instead of running the older code.
    await utimes(STAMP, new Date(started), new Date(started));
  });
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The OperatorVersion webhook's warning when package verification outlasts its budget: it
 * depends on how busy the machine is, not on the package, so tests that compare a CLI's
 * stderr leave this one line out (test/unit/kudo/admission covers the warning itself).
 */
const BUSY_VERIFIER_WARNING =
  /^Warning: OperatorVersion \S+ was admitted without package verification: it did not finish within \d+ ms\..*\n/gm;

/** `text` without the verifier's busy-machine warning. */
export function withoutBusyVerifierWarning(text: string): string {
  return text.replace(BUSY_VERIFIER_WARNING, '');
}

/** `result` with stderr {@link withoutBusyVerifierWarning}. */
export function withoutBusyVerifier(result: CliResult): CliResult {
  return { ...result, stderr: withoutBusyVerifierWarning(result.stderr) };
}

/** Where a kubectl-kudo run points: its namespace, kubeconfig, KUDO_HOME and working folder. */
export interface KudoRun {
  readonly namespace: string;
  readonly kubeconfig: string;
  readonly home?: string;
  readonly cwd?: string;
}

/**
 * The built kubectl-kudo with `--namespace` after the arguments (as kuttl appends flags), its
 * stderr {@link withoutBusyVerifier}.
 */
export function runKudo(args: readonly string[], run: KudoRun): Promise<CliResult> {
  return runBuilt(KUBECTL_KUDO, [...args, '--namespace', run.namespace], {
    env: {
      KUBECONFIG: run.kubeconfig,
      ...(run.home !== undefined ? { KUDO_HOME: run.home } : {}),
    },
    ...(run.cwd !== undefined ? { cwd: run.cwd } : {}),
  }).then(withoutBusyVerifier);
}

/** What {@link runProcess} gives the child: `input` on stdin (none: stdin is /dev/null). */
export interface ProcessOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  readonly input?: string;
}

/** Runs an executable to the end; resolves with its exit code and output whatever the code. */
export function runProcess(
  file: string,
  args: readonly string[],
  options: ProcessOptions,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(options.input);
  });
}

/** Runs a built executable; resolves with its exit code and output, never throws on failure. */
export function runBuilt(
  entry: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<CliResult> {
  return runProcess(process.execPath, ['--enable-source-maps', entry, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    timeoutMs: options.timeoutMs ?? 120_000,
    input: options.input ?? '',
  });
}
