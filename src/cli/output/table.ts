import { renderUiTable } from './uitable.ts';

/**
 * Tables the way KUDO's CLI printed them (`fmt.Fprintln(out, table)` of a gosuri/uitable
 * without a width limit): every cell padded to its column's width, cells separated by a tab,
 * one row per line, each line ending in a newline.
 */
export function renderTable(rows: ReadonlyArray<ReadonlyArray<string>>): string {
  return rows.length === 0 ? '' : `${renderUiTable(rows)}\n`;
}
