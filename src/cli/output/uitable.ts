/**
 * Tables byte for byte as KUDO's CLI printed them with github.com/gosuri/uitable v0.0.4: cells
 * padded to their column's width and joined by a tab, multi-line cells spread over several
 * lines, and — with a maximum column width — long cells word-wrapped at spaces, a word still
 * longer than the width cut to `width - 3` characters plus `...`. Written here because the
 * npm table printers neither cut nor wrap this way, and users parse this output.
 * Widths are counted in code points (uitable counted terminal columns: the same for the
 * ASCII text of packages; East Asian wide characters would align differently).
 */
export interface UiTableOptions {
  /** uitable's MaxColWidth: 0 = unlimited. */
  readonly maxColWidth?: number;
  /** uitable's Wrap: cells longer than the width are word-wrapped instead of cut. */
  readonly wrap?: boolean;
}

/** A cell: text, or `undefined` for uitable's nil (a line a shorter cell does not fill). */
type CellData = string | undefined;

/** Terminal columns as go-runewidth counts them here: control characters take none. */
function width(text: string): number {
  let w = 0;
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    if (code >= 0x20 && (code < 0x7f || code > 0x9f)) w += 1;
  }
  return w;
}

const isSpace = (c: string): boolean => /\s/u.test(c);

/** uitable's util/wordwrap.WrapString: breaks only at white space; long words stay whole. */
export function wrapString(text: string, limit: number): string {
  let out = '';
  let current = 0;
  let word = '';
  let space = '';
  let wordWidth = 0;
  let spaceWidth = 0;
  for (const c of text) {
    if (c === '\n') {
      if (word.length === 0) {
        if (current + spaceWidth <= limit) out += space;
      } else {
        out += space + word;
      }
      space = '';
      word = '';
      spaceWidth = 0;
      wordWidth = 0;
      out += c;
      current = 0;
    } else if (isSpace(c)) {
      if (space.length === 0 || word.length > 0) {
        current += spaceWidth + wordWidth;
        out += space + word;
        space = '';
        word = '';
        spaceWidth = 0;
        wordWidth = 0;
      }
      space += c;
      spaceWidth += width(c);
    } else {
      word += c;
      wordWidth += width(c);
      if (current + spaceWidth + wordWidth > limit && wordWidth < limit) {
        out += '\n';
        current = 0;
        space = '';
        spaceWidth = 0;
      }
    }
  }
  if (word.length === 0) {
    if (current + spaceWidth <= limit) out += space;
  } else {
    out += space + word;
  }
  return out;
}

/** uitable's strutil.Resize (left-aligned): pad to `n`, or cut to `n - 3` plus `...`. */
export function resize(text: string, n: number): string {
  const w = width(text);
  if (w === n) return text;
  if (w < n) return text + ' '.repeat(n - w);
  let out = '';
  let used = 0;
  for (const c of text) {
    out += c;
    const w = width(c);
    if (used + w >= n - 3) break;
    used += w;
  }
  return `${out}...`;
}

function cellString(data: CellData, cellWidth: number, wrap: boolean): string {
  if (data === undefined) return cellWidth > 1 ? ' '.repeat(cellWidth) : ' ';
  if (cellWidth > 0) {
    if (wrap && Buffer.byteLength(data) > cellWidth) return wrapString(data, cellWidth);
    return resize(data, cellWidth);
  }
  return data;
}

/** The table's text as uitable's String() returns it: lines joined by `\n`, no final newline. */
export function renderUiTable(
  rows: ReadonlyArray<ReadonlyArray<string>>,
  options: UiTableOptions = {},
): string {
  const max = options.maxColWidth ?? 0;
  const wrap = options.wrap ?? false;
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      let w = Math.max(...cell.split('\n').map(width));
      if (max !== 0 && w > max) w = max;
      widths[i] = Math.max(widths[i] ?? 0, w);
    });
  }
  const lines = rows.map((row) => {
    const cells = row.map((cell, i) => cellString(cell, widths[i] ?? 0, wrap).split('\n'));
    const count = Math.max(...cells.map((c) => c.length));
    const out: string[] = [];
    for (let x = 0; x < count; x++) {
      out.push(cells.map((c, y) => cellString(c[x], widths[y] ?? 0, false)).join('\t'));
    }
    return out.join('\n');
  });
  return lines.join('\n');
}
