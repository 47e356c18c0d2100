/**
 * CPU time a process has used, for the render deadline: a job's deadline counts the CPU its
 * worker spends on it, not wall-clock time, so a busy machine (other processes taking the
 * cores) does not fail a valid template as if it looped. Node has no API for another
 * process's CPU time; Linux reports it in /proc/<pid>/stat. Elsewhere the answer is
 * undefined and callers fall back to wall-clock time.
 */
import { readProcFile } from './proc.ts';

/** Linux reports utime/stime in USER_HZ ticks, which is 100 per second on every architecture. */
const MS_PER_TICK = 10;

/** User + system CPU time of `pid` in ms (10 ms resolution), or undefined if unknown. */
export function cpuTimeMs(pid: number | undefined): number | undefined {
  const stat = readProcFile(pid, 'stat');
  if (stat === undefined) return undefined;
  // Field 2 (the command name) is in parentheses and may itself hold spaces or ')'; the
  // fields after its last ')' start at field 3, so utime (14) and stime (15) are at 11, 12.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime)
    ? (utime + stime) * MS_PER_TICK
    : undefined;
}
