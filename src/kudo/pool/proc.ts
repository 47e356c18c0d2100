/**
 * What Linux tells about another process in /proc, for the render workers' limits: Node has
 * no API for another process's CPU time or resident memory. Elsewhere (no /proc) every answer
 * is undefined and callers fall back to what Node itself enforces (wall-clock time, the heap
 * limit).
 */
import { readFileSync } from 'node:fs';

/** The text of `/proc/<pid>/<file>`, or undefined when it cannot be read. */
export function readProcFile(pid: number | undefined, file: 'stat' | 'statm'): string | undefined {
  if (pid === undefined) return undefined;
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return undefined;
  }
}
