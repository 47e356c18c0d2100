// What the last runs took: each test file's wall time and when the lanes could start. The
// runner plans the next run's lanes from it (plan.ts) and writes this run's figures back at its
// end, in the machine's cache, keyed by repository-relative path, so a fresh clone plans as well
// as the checkout that ran last. A machine that has run nothing yet plans from the figures
// committed beside this file (durations.json, from a whole run on a 2-core machine; as
// pytest-split keeps its durations), so a new file or a changed one only costs balance. Only
// a hint: a missing, unreadable or foreign file gives an empty history and the defaults.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheRoot } from '../../src/localcluster/paths.ts';
import type { FileTime } from './report.ts';

export interface History {
  /** Wall time of each test file, ms (null-prototype: keys are file paths). */
  readonly files: Record<string, number>;
  /** When the lanes could start in the last full run, ms since its beginning. */
  readonly starts: Partial<Record<'builds' | 'image' | 'unit', number>>;
}

/** Files kept: far more than the suite has, so a bound that only stops unbounded growth. */
const MAX_FILES = 2_000;

export function historyFile(): string {
  return join(cacheRoot(), 'test-history.json');
}

/** The committed figures, then this machine's over them. */
export async function loadHistory(): Promise<History> {
  const seed = await readHistory(new URL('./durations.json', import.meta.url).pathname);
  const machine = await readHistory();
  const history = emptyHistory();
  Object.assign(history.files, seed.files, machine.files);
  Object.assign(history.starts, seed.starts, machine.starts);
  return history;
}

export function emptyHistory(): History {
  return { files: Object.create(null) as Record<string, number>, starts: {} };
}

export async function readHistory(file = historyFile()): Promise<History> {
  const history = emptyHistory();
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return history;
  }
  if (typeof raw !== 'object' || raw === null) return history;
  const { files, starts } = raw as { files?: unknown; starts?: unknown };
  if (typeof files === 'object' && files !== null) {
    for (const [path, ms] of Object.entries(files).slice(0, MAX_FILES)) {
      if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) history.files[path] = ms;
    }
  }
  if (typeof starts === 'object' && starts !== null) {
    for (const key of ['builds', 'image', 'unit'] as const) {
      const ms = (starts as Record<string, unknown>)[key];
      if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) history.starts[key] = ms;
    }
  }
  return history;
}

/**
 * The history after this run: its files' times replace the old ones (files it did not run keep
 * theirs), and the starts it measured replace the old starts.
 */
export function updatedHistory(
  previous: History,
  files: readonly FileTime[],
  starts: History['starts'],
): History {
  const next = emptyHistory();
  // A failed file's time says how long it took to fail (a wait that ran to its timeout, or a
  // stop half-way), not how long it takes: planned from it, the next run's lanes came out of
  // balance (its lane ended 274 s before the others). Its previous figure stays.
  for (const f of files) if (f.ok) next.files[f.file] = Math.round(f.ms);
  let kept = Object.keys(next.files).length;
  for (const [path, ms] of Object.entries(previous.files)) {
    if (kept >= MAX_FILES) break;
    if (path in next.files) continue;
    next.files[path] = ms;
    kept++;
  }
  Object.assign(next.starts, previous.starts, starts);
  return next;
}

/** Writes it whole or not at all (a rename), so a run stopped midway leaves the last one. */
export async function writeHistory(history: History, file = historyFile()): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(history, null, 1)}\n`);
  await rename(partial, file);
}
