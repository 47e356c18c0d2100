#!/usr/bin/env node
// Process wiring for `npm start`: one root AbortSignal for the whole process, aborted by the
// first SIGINT/SIGTERM; a second signal forces the exit (child processes die with us).
import { parseStartArgs, UsageError, USAGE } from './cli/args.ts';
import { runStart, type Console } from './cli/start.ts';

const io: Console = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

async function main(): Promise<number> {
  const root = new AbortController();
  let signals = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    signals++;
    if (signals === 1) {
      io.err(`\n${name} received: shutting down (send it again to force).`);
      root.abort(new Error(`${name} received`));
    } else {
      io.err(`${name} received again: exiting now.`);
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const options = parseStartArgs(process.argv.slice(2));
    if (options.help) {
      io.out(USAGE);
      return 0;
    }
    return await runStart(options, io, root.signal);
  } catch (err) {
    if (root.signal.aborted && (err as Error).name === 'AbortError') return 130;
    io.err(`error: ${(err as Error).message}`);
    if (err instanceof UsageError) io.err(USAGE);
    return err instanceof UsageError ? 2 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

process.exitCode = await main();
