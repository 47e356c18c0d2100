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

/** The part of a Terminal that commands printing whole lines need (start, the manager). */
export type LineWriter = Pick<Terminal, 'out' | 'err'>;

export function processTerminal(): Terminal {
  return {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    write: (text) => void process.stdout.write(text),
    isTTY: process.stdout.isTTY === true,
    get columns() {
      return process.stdout.columns;
    },
  };
}
