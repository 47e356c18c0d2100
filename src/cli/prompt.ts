/**
 * Line prompts for the interactive `package new` / `package add` (KUDO used promptui): a label,
 * the default in brackets, re-asked until the validator accepts the answer. Only on a terminal;
 * elsewhere the commands take flags instead.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import { CliError } from './errors.ts';

export type Validator = (answer: string) => string | undefined;

export interface Prompter {
  ask(label: string, defaultValue?: string, validate?: Validator): Promise<string>;
  close(): void;
}

export function terminalPrompter(signal: AbortSignal): Prompter {
  const rl: Interface = createInterface({ input: process.stdin, output: process.stdout });
  return {
    async ask(label, defaultValue = '', validate) {
      for (;;) {
        const suffix = defaultValue ? ` [${defaultValue}]` : '';
        const answer =
          (await rl.question(`${label}${suffix}: `, { signal })).trim() || defaultValue;
        const problem = validate?.(answer);
        if (problem === undefined) return answer;
        process.stdout.write(`✗ ${problem}\n`);
      }
    },
    close: () => rl.close(),
  };
}

/** Interactive input needs a terminal on both ends; otherwise say which flags to use. */
export function assertTerminal(what: string, flags: string): void {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new CliError(
      `${what} asks interactively, which needs a terminal; without one pass ${flags}`,
    );
  }
}
