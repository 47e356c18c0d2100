/** Where a command writes: whole lines for a person, plus raw text for live redraws on a TTY. */
export interface Terminal {
  out(line: string): void;
  err(line: string): void;
  /** Raw stdout text (no newline added): cursor movements of the live plan tree. */
  write(text: string): void;
  /** stdout is a terminal: redraw in place instead of printing one line per change. */
  readonly isTTY: boolean;
  /** Width of the terminal, when known: redrawn lines are cut to it so they never wrap. */
  readonly columns?: number;
}

/**
 * A stream the reader may close early (`kubectl kudo package list plans . | head -3`): the
 * first EPIPE stops all further writes to it, quietly — what a Go CLI does when SIGPIPE ends
 * it — instead of an unhandled 'error' event with a stack trace. Other write errors are
 * reported once on stderr.
 */
export function guardedWriter(
  stream: NodeJS.WritableStream,
  onOtherError: (err: Error) => void,
): (text: string) => void {
  let closed = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    if (err.code !== 'EPIPE') onOtherError(err);
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

/** The part of a Terminal that commands printing whole lines need (start, the manager). */
export type LineWriter = Pick<Terminal, 'out' | 'err'>;

export function processTerminal(): Terminal {
  const errWrite = guardedWriter(process.stderr, () => undefined);
  const outWrite = guardedWriter(process.stdout, (err) =>
    errWrite(`Error: cannot write to stdout: ${err.message}\n`),
  );
  return {
    out: (line) => outWrite(`${line}\n`),
    err: (line) => errWrite(`${line}\n`),
    write: outWrite,
    isTTY: process.stdout.isTTY === true,
    get columns() {
      return process.stdout.columns;
    },
  };
}
