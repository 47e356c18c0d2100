/**
 * Resident memory of a process, for the render workers' memory budget. V8's heap limit
 * (`--max-old-space-size`) bounds the old generation only: new space, code, buffers and
 * single large allocations V8 makes without checking that limit (flattening a long rope
 * string) come on top, so the pool also watches what the kernel counts. Linux reports it in
 * /proc/<pid>/statm; elsewhere the answer is undefined and only the heap limit applies.
 */
import { readProcFile } from './proc.ts';

/** Page size of /proc/<pid>/statm: 4 KiB on the architectures Planwright is built for. */
const PAGE_BYTES = 4096;

/** Resident set size of `pid` in bytes, or undefined if unknown. */
export function residentBytes(pid: number | undefined): number | undefined {
  const statm = readProcFile(pid, 'statm');
  if (statm === undefined) return undefined;
  const pages = Number(statm.split(' ')[1]);
  return Number.isFinite(pages) ? pages * PAGE_BYTES : undefined;
}
