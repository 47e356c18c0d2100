// Go's per-rune case mapping (package unicode: one rune to one rune, where JavaScript's
// toUpperCase maps `ß` to `SS`), and huandu/xstrings v1.3.2's camel/snake/kebab case, which
// KUDO's sprig calls. Written here because no npm package reproduces xstrings' word rules.

const RUNE_ERROR = 0xfffd;

const isSpace = (r: number): boolean => /\p{White_Space}/u.test(String.fromCodePoint(r));
const isUpper = (r: number): boolean => /\p{Lu}/u.test(String.fromCodePoint(r));
const isLetter = (r: number): boolean => /\p{L}/u.test(String.fromCodePoint(r));
const isPunct = (r: number): boolean => /\p{P}/u.test(String.fromCodePoint(r));
const isNumber = (r: number): boolean => /\p{N}/u.test(String.fromCodePoint(r));

/** unicode.ToUpper: the simple mapping; a rune whose only uppercase is several stays. */
export function upperRune(c: string): string {
  const u = c.toUpperCase();
  return u.length === c.length || [...u].length === 1 ? u : c;
}

/** unicode.ToLower. */
export function lowerRune(c: string): string {
  if (c === '\u0130') return 'i';
  const l = c.toLowerCase();
  return [...l].length === 1 ? l : c;
}

/** Latin digraphs whose title case is neither their upper nor their lower case. */
const TITLE_DIGRAPHS: Readonly<Record<string, string>> = {
  '\u01c4': '\u01c5',
  '\u01c5': '\u01c5',
  '\u01c6': '\u01c5',
  '\u01c7': '\u01c8',
  '\u01c8': '\u01c8',
  '\u01c9': '\u01c8',
  '\u01ca': '\u01cb',
  '\u01cb': '\u01cb',
  '\u01cc': '\u01cb',
  '\u01f1': '\u01f2',
  '\u01f2': '\u01f2',
  '\u01f3': '\u01f2',
};

/** unicode.ToTitle. */
export function titleRune(c: string): string {
  return TITLE_DIGRAPHS[c] ?? upperRune(c);
}

/** strings.ToUpper. */
export function goUpper(s: string): string {
  let out = '';
  for (const c of s) out += upperRune(c);
  return out;
}

/** strings.ToLower. */
export function goLower(s: string): string {
  let out = '';
  for (const c of s) out += lowerRune(c);
  return out;
}

const isConnector = (r: number): boolean => r === 0x2d || r === 0x5f || isSpace(r);

/** xstrings' isAlphabet: a letter, but not a CJK ideograph. */
function isAlphabet(r: number): boolean {
  if (!isLetter(r)) return false;
  if (r < 0x3400) return true;
  if (r >= 0x4e00 && r <= 0x9fcc) return false;
  if (r >= 0x3400 && r <= 0x4d85) return false;
  if (r >= 0x20000 && r <= 0x2b81d) return false;
  return true;
}

const enum W {
  Invalid,
  Number,
  Upper,
  Alphabet,
  Connector,
  Punct,
  Other,
}

interface Word {
  wt: W;
  word: number[];
  rest: number[];
}

/** xstrings' nextValidRune: skips invalid runes, counting them into the size. */
function nextValidRune(s: number[], from: number, prev: number): [number, number] {
  let size = 0;
  for (let i = from; i < s.length; i++) {
    size++;
    if (s[i] !== RUNE_ERROR) return [s[i]!, size];
  }
  return [prev, size];
}

/** xstrings' nextWord, on runes (a Go byte offset is a rune index here). */
function nextWord(str: number[]): Word {
  if (str.length === 0) return { wt: W.Invalid, word: [], rest: [] };
  let offset = 0;
  let pos = 0;
  let [r, size] = nextValidRune(str, pos, RUNE_ERROR);
  offset += size;
  if (r === RUNE_ERROR)
    return { wt: W.Invalid, word: str.slice(0, offset), rest: str.slice(offset) };
  let wt: W;
  const scan = (keep: (r: number) => boolean): void => {
    pos += size;
    while (pos < str.length) {
      [r, size] = nextValidRune(str, pos, r);
      if (!keep(r)) break;
      offset += size;
      pos += size;
    }
  };
  if (isConnector(r)) {
    wt = W.Connector;
    scan(isConnector);
  } else if (isPunct(r)) {
    wt = W.Punct;
    scan(isPunct);
  } else if (isUpper(r)) {
    wt = W.Upper;
    pos += size;
    if (pos < str.length) {
      [r, size] = nextValidRune(str, pos, r);
      if (isUpper(r)) {
        let prevSize = size;
        offset += size;
        pos += size;
        while (pos < str.length) {
          [r, size] = nextValidRune(str, pos, r);
          if (!isUpper(r)) break;
          prevSize = size;
          offset += size;
          pos += size;
        }
        if (pos < str.length && isAlphabet(r)) {
          offset -= prevSize;
          pos = offset;
        }
      } else if (isAlphabet(r)) {
        offset += size;
        pos += size;
        while (pos < str.length) {
          [r, size] = nextValidRune(str, pos, r);
          if (!isAlphabet(r) || isUpper(r)) break;
          offset += size;
          pos += size;
        }
      }
    }
  } else if (isAlphabet(r)) {
    wt = W.Alphabet;
    scan((x) => isAlphabet(x) && !isUpper(x));
  } else if (isNumber(r)) {
    wt = W.Number;
    scan(isNumber);
  } else {
    wt = W.Other;
    scan((x) => !(isConnector(x) || isAlphabet(x) || isNumber(x) || isPunct(x)));
  }
  return { wt, word: str.slice(0, offset), rest: str.slice(pos) };
}

function toLower(out: number[], wt: W, word: number[], connector: number): void {
  if (wt !== W.Upper && wt !== W.Connector) {
    out.push(...word);
    return;
  }
  for (const r of word) {
    if (isConnector(r)) out.push(connector);
    else if (isUpper(r)) out.push(lowerRune(String.fromCodePoint(r)).codePointAt(0)!);
    else out.push(r);
  }
}

const runes = (s: string): number[] => [...s].map((c) => c.codePointAt(0)!);
const text = (rs: number[]): string => String.fromCodePoint(...rs);

/** xstrings v1.3.2 camelCaseToLowerCase (snakecase with `_`, kebabcase with `-`). */
export function toLowerCaseWords(s: string, connector: '_' | '-'): string {
  if (s === '') return '';
  const c = connector.codePointAt(0)!;
  const out: number[] = [];
  let w = nextWord(runes(s));
  while (w.rest.length > 0) {
    if (w.wt !== W.Connector) toLower(out, w.wt, w.word, c);
    const prev = w.wt;
    const last = w.word;
    w = nextWord(w.rest);
    switch (prev) {
      case W.Number:
        while (w.wt === W.Alphabet || w.wt === W.Number) {
          toLower(out, w.wt, w.word, c);
          w = nextWord(w.rest);
        }
        if (w.wt !== W.Invalid && w.wt !== W.Punct) out.push(c);
        break;
      case W.Connector:
        toLower(out, prev, last, c);
        break;
      case W.Punct:
        break;
      default: {
        if (w.wt !== W.Number) {
          if (w.wt !== W.Connector && w.wt !== W.Punct) out.push(c);
          break;
        }
        if (w.rest.length === 0) break;
        const num = w.word;
        w = nextWord(w.rest);
        if (w.wt !== W.Alphabet) {
          toLower(out, W.Number, num, c);
          if (w.wt !== W.Connector && w.wt !== W.Punct) out.push(c);
          break;
        }
        out.push(c);
        toLower(out, W.Number, num, c);
        while (w.wt === W.Alphabet || w.wt === W.Number) {
          toLower(out, w.wt, w.word, c);
          w = nextWord(w.rest);
        }
        if (w.wt !== W.Invalid && w.wt !== W.Connector && w.wt !== W.Punct) out.push(c);
      }
    }
  }
  toLower(out, w.wt, w.word, c);
  return text(out);
}

/** xstrings v1.3.2 ToCamelCase (upper camel case; connectors dropped). */
export function toCamelCase(s: string): string {
  const rs = runes(s);
  if (rs.length === 0) return '';
  const out: number[] = [];
  const up = (r: number): number => upperRune(String.fromCodePoint(r)).codePointAt(0)!;
  const low = (r: number): number => lowerRune(String.fromCodePoint(r)).codePointAt(0)!;
  let i = 0;
  let r0 = 0;
  let size = 0;
  while (i < rs.length) {
    r0 = rs[i++]!;
    size = 1;
    if (!isConnector(r0)) {
      r0 = up(r0);
      break;
    }
    out.push(r0);
  }
  if (i >= rs.length) {
    if (size !== 0) out.push(r0);
    return text(out);
  }
  while (i < rs.length) {
    const r1 = r0;
    r0 = rs[i++]!;
    if (isConnector(r0) && isConnector(r1)) {
      out.push(r1);
      continue;
    }
    if (isConnector(r1)) r0 = up(r0);
    else {
      r0 = low(r0);
      out.push(r1);
    }
  }
  out.push(r0);
  return text(out);
}
