// What the runner prints at its end: the wall time of every build step and check, of every
// test file (slowest first), and one closing line of counts CI logs can be read by.
import { readFile } from 'node:fs/promises';
import { stripVTControlCharacters } from 'node:util';
import { relative } from 'node:path';

export interface StepTime {
  readonly name: string;
  /** ms since the run started. */
  readonly startMs: number;
  readonly endMs: number;
  readonly ok: boolean;
}

export interface FileTime {
  readonly file: string;
  readonly group: string;
  readonly ms: number;
  readonly ok: boolean;
}

/** One test that failed, or a file that failed to run (then `test` is undefined). */
export interface Failure {
  readonly file: string;
  readonly test: string | undefined;
  /** The first lines of jest's message, colours stripped. */
  readonly message: string;
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** The part of jest's --json output the report reads. */
interface JestJson {
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly numPendingTests: number;
  readonly numTodoTests: number;
  readonly numRuntimeErrorTestSuites: number;
  readonly testResults: readonly {
    readonly name: string;
    readonly startTime: number;
    readonly endTime: number;
    readonly status: string;
    /** Set when the file failed to run (an import threw, a hook timed out). */
    readonly message?: string;
    readonly assertionResults?: readonly {
      readonly fullName: string;
      readonly status: string;
      readonly failureMessages?: readonly string[];
    }[];
  }[];
}

// Enough of a message to tell one failure from another; the whole text is in the log above.
const MESSAGE_LINES = 6;
const MESSAGE_CHARS = 600;

function excerpt(message: string): string {
  // jest's messages carry ANSI colour sequences.
  const lines = stripVTControlCharacters(message)
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(0, MESSAGE_LINES)
    .join('\n');
  return lines.length > MESSAGE_CHARS ? `${lines.slice(0, MESSAGE_CHARS)}…` : lines;
}

/** Counts and file times of one jest run, from its --outputFile; undefined when it wrote none. */
export async function readJestResult(
  file: string,
  group: string,
  root: string,
): Promise<{ counts: Counts; files: FileTime[]; failures: Failure[] } | undefined> {
  let json: JestJson;
  try {
    json = JSON.parse(await readFile(file, 'utf8')) as JestJson;
  } catch {
    return undefined;
  }
  return {
    counts: {
      passed: json.numPassedTests,
      // A file that failed to run counts as one failure (its tests never reported).
      failed: json.numFailedTests + json.numRuntimeErrorTestSuites,
      skipped: json.numPendingTests + json.numTodoTests,
    },
    files: json.testResults.map((r) => ({
      file: relative(root, r.name),
      group,
      ms: Math.max(0, r.endTime - r.startTime),
      ok: r.status === 'passed',
    })),
    failures: json.testResults.flatMap((r): Failure[] => {
      const file = relative(root, r.name);
      const failed = (r.assertionResults ?? [])
        .filter((a) => a.status === 'failed')
        .map((a) => ({ file, test: a.fullName, message: excerpt(a.failureMessages?.[0] ?? '') }));
      if (failed.length > 0) return failed;
      return r.status === 'failed'
        ? [{ file, test: undefined, message: excerpt(r.message ?? '') }]
        : [];
    }),
  };
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1).padStart(7);

export function formatSteps(steps: readonly StepTime[]): string {
  const lines = ['', 'build steps and checks (wall time; start → end since the run began):'];
  for (const s of [...steps].sort((a, b) => a.startMs - b.startMs)) {
    lines.push(
      `${seconds(s.endMs - s.startMs)} s  ${s.ok ? '  ' : '✗ '}${s.name}` +
        `  (${(s.startMs / 1000).toFixed(0)} → ${(s.endMs / 1000).toFixed(0)} s)`,
    );
  }
  return lines.join('\n');
}

export function formatFiles(files: readonly FileTime[]): string {
  const lines = ['', `test files (${files.length}), slowest first (wall time):`];
  for (const f of [...files].sort((a, b) => b.ms - a.ms)) {
    lines.push(`${seconds(f.ms)} s  ${f.ok ? '  ' : '✗ '}${f.group.padEnd(11)} ${f.file}`);
  }
  return lines.join('\n');
}

/**
 * The failures again, last, so that a log cut to its tail (CI keeps the end) still names
 * what failed and why.
 */
export function formatFailures(failures: readonly Failure[]): string {
  if (failures.length === 0) return '';
  const lines = ['', `failed (${failures.length}):`];
  for (const f of failures) {
    lines.push(`✗ ${f.file}${f.test === undefined ? ' (the file failed to run)' : ` › ${f.test}`}`);
    for (const l of f.message.split('\n')) if (l !== '') lines.push(`    ${l}`);
  }
  return lines.join('\n');
}
