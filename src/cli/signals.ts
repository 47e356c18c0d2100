/**
 * The process's one signal handler (controller-runtime's SetupSignalHandler): the first
 * SIGINT/SIGTERM aborts the root signal every part of the process hangs off (a graceful stop);
 * a second one exits at once with {@link EXIT_FORCED}.
 *
 * Exit codes of the executables: 0 done (a graceful stop included); 1 the manager stopped on
 * an unrecoverable error; 2 its graceful shutdown passed the deadline; 130 forced by a second
 * signal (or interrupted); 255 a command failed (`Error: …` on stderr).
 */

export const EXIT_FORCED = 130;

export interface ShutdownSignal {
  readonly signal: AbortSignal;
  /** Removes the handler (when the command has returned). */
  dispose(): void;
}

export function shutdownSignal(
  say: (line: string) => void,
  proc: NodeJS.Process = process,
  forceExit: (code: number) => void = (code) => proc.exit(code),
): ShutdownSignal {
  const root = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals === 1) {
      say(`\n${signal} received: shutting down (send it again to force).`);
      root.abort(new Error(`${signal} received`));
    } else {
      say(`${signal} received again: exiting now.`);
      forceExit(EXIT_FORCED);
    }
  };
  proc.on('SIGINT', onSignal);
  proc.on('SIGTERM', onSignal);
  return {
    signal: root.signal,
    dispose: () => {
      proc.off('SIGINT', onSignal);
      proc.off('SIGTERM', onSignal);
    },
  };
}
