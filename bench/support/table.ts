// Printing figures: a Markdown table (pasted into READMEs and issue notes as it is).

export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);

/** `a / b` as "3.2×"; "–" when both are 0, "∞" when only b is. */
export function ratio(a: number, b: number): string {
  if (a === 0 && b === 0) return '–';
  if (b === 0) return '∞';
  const r = a / b;
  return `${r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toFixed(2)}×`;
}

/** A Markdown table, columns padded to their widest cell. */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${widths.map((w, i) => (cells[i] ?? '').padEnd(w)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}
