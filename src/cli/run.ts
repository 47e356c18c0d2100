/**
 * Process wiring shared by the `planwright` and `kubectl-kudo` executables: the command tree
 * under the root signal the executable made (see signals.ts), and the exit code (0, or 255
 * with `Error: …` on stderr).
 */
import { CliContext } from './context.ts';
import { processTerminal } from './io.ts';
import { buildProgram, runProgram } from './program.ts';
import { shutdownSignal } from './signals.ts';
import type { VerbModule } from './verbs.ts';

export async function runCli(
  name: string,
  argv: readonly string[],
  extra: readonly VerbModule[] = [],
): Promise<number> {
  const term = processTerminal();
  const shutdown = shutdownSignal((line) => term.err(line));
  try {
    const ctx = new CliContext({ term, signal: shutdown.signal, commandName: name });
    return await runProgram(await buildProgram(ctx, name, { extra, argv }), argv, ctx);
  } finally {
    shutdown.dispose();
  }
}
