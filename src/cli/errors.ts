/**
 * What a command reports when it fails: the CLI prints `Error: <message>` on stderr and exits
 * 255 (KUDO called os.Exit(-1)); no usage text follows. Messages follow KUDO's wording where
 * KUDO's own tests or users depend on it, and otherwise name the object and what to do.
 */
export const EXIT_OK = 0;
export const EXIT_ERROR = 255;

export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A process the command ran stopped with a non-zero exit code, which the CLI exits with. */
export class ChildExitError extends CliError {
  override readonly name: string = 'ChildExitError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** `start`: the manager stopped with a non-zero exit code, which the process exits with. */
export class ManagerExitError extends ChildExitError {
  override readonly name = 'ManagerExitError';
  constructor(exitCode: number) {
    super(`Planwright stopped with exit code ${exitCode} (see the log above)`, exitCode);
  }
}

/** A waited-for plan ended FATAL_ERROR or ABORTED, or the wait timed out. */
export class PlanFailedError extends CliError {
  override readonly name = 'PlanFailedError';
}
