// A Terminal that records what a command writes, for tests of the command tree.
import { CliContext } from '../../../src/cli/context.ts';
import type { Terminal } from '../../../src/cli/io.ts';
import { buildProgram, runProgram } from '../../../src/cli/program.ts';

export interface RecordingTerminal extends Terminal {
  readonly stdout: string[];
  readonly stderr: string[];
}

export function recordingTerminal(isTTY = false, columns?: number): RecordingTerminal {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    isTTY,
    ...(columns !== undefined ? { columns } : {}),
    out: (line) => void stdout.push(`${line}\n`),
    err: (line) => void stderr.push(`${line}\n`),
    write: (text) => void stdout.push(text),
  };
}

/** Runs the `kubectl kudo` command tree in-process with `argv`; no cluster unless one is configured. */
export async function runCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = { HOME: '/nonexistent', KUBECONFIG: '/nonexistent/kubeconfig' },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const term = recordingTerminal();
  const ctx = new CliContext({
    term,
    signal: new AbortController().signal,
    env,
    cwd: '/',
    commandName: 'kubectl kudo',
  });
  const code = await runProgram(await buildProgram(ctx, 'kubectl kudo', { argv }), argv, ctx);
  return { code, stdout: term.stdout.join(''), stderr: term.stderr.join('') };
}
