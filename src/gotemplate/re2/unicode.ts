// Unicode data for the RE2 parser, taken from the JS engine's own tables (the code point
// sets behind \p{...} and case mapping) rather than shipped: Go's regexp/syntax builds its
// classes from package unicode, and both follow the Unicode Character Database. Tables
// are computed on first use and memoised; the memos are bounded by the fixed set of names.

const MIN_FOLD = 0x41;
const MAX_FOLD = 0x1e943;

/** Go's unicode.Categories keys that its canonical name lookup can reach (LC is special). */
const CATEGORIES = new Set(
  'C Cc Cf Cn Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(
    ' ',
  ),
);

// Go 1.26 looks scripts up by canonicalName (capitalised, other letters lowercased,
// separators dropped), so only the one-word script names of its unicode.Scripts are found;
// \p{Old_Italic} is an error there, and so it is here.
const SCRIPTS = new Set(
  (
    'Adlam Ahom Arabic Armenian Avestan Balinese Bamum Batak Bengali Bhaiksuki Bopomofo Brahmi ' +
    'Braille Buginese Buhid Carian Chakma Cham Cherokee Chorasmian Common Coptic Cuneiform ' +
    'Cypriot Cyrillic Deseret Devanagari Dogra Duployan Elbasan Elymaic Ethiopic Georgian ' +
    'Glagolitic Gothic Grantha Greek Gujarati Gurmukhi Han Hangul Hanunoo Hatran Hebrew ' +
    'Hiragana Inherited Javanese Kaithi Kannada Katakana Kawi Kharoshthi Khmer Khojki ' +
    'Khudawadi Lao Latin Lepcha Limbu Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic ' +
    'Manichaean Marchen Medefaidrin Miao Modi Mongolian Mro Multani Myanmar Nabataean ' +
    'Nandinagari Newa Nko Nushu Ogham Oriya Osage Osmanya Palmyrene Phoenician Rejang Runic ' +
    'Samaritan Saurashtra Sharada Shavian Siddham Sinhala Sogdian Soyombo Sundanese Syriac ' +
    'Tagalog Tagbanwa Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta ' +
    'Toto Ugaritic Vai Vithkuqi Wancho Yezidi Yi'
  ).split(' '),
);

/** unicode.CategoryAliases, keyed by canonical name. */
const ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    Casedletter: 'LC',
    Closepunctuation: 'Pe',
    Combiningmark: 'M',
    Connectorpunctuation: 'Pc',
    Control: 'Cc',
    Currencysymbol: 'Sc',
    Dashpunctuation: 'Pd',
    Decimalnumber: 'Nd',
    Enclosingmark: 'Me',
    Finalpunctuation: 'Pf',
    Format: 'Cf',
    Initialpunctuation: 'Pi',
    Letter: 'L',
    Letternumber: 'Nl',
    Lineseparator: 'Zl',
    Lowercaseletter: 'Ll',
    Mark: 'M',
    Mathsymbol: 'Sm',
    Modifierletter: 'Lm',
    Modifiersymbol: 'Sk',
    Nonspacingmark: 'Mn',
    Number: 'N',
    Openpunctuation: 'Ps',
    Other: 'C',
    Otherletter: 'Lo',
    Othernumber: 'No',
    Otherpunctuation: 'Po',
    Othersymbol: 'So',
    Paragraphseparator: 'Zp',
    Privateuse: 'Co',
    Punctuation: 'P',
    Separator: 'Z',
    Spaceseparator: 'Zs',
    Spacingmark: 'Mc',
    Surrogate: 'Cs',
    Symbol: 'S',
    Titlecaseletter: 'Lt',
    Unassigned: 'Cn',
    Uppercaseletter: 'Lu',
    Cntrl: 'Cc',
    Digit: 'Nd',
    Punct: 'P',
  }),
);

/** Go's canonicalName: first letter upper, the rest lower, '_', '-' and ' ' dropped. */
export function canonicalName(name: string): string {
  let out = '';
  let first = true;
  for (const c of name) {
    if (c === '_' || c === '-' || c === ' ') continue;
    if (first) {
      out += c >= 'a' && c <= 'z' ? c.toUpperCase() : c;
      first = false;
    } else out += c >= 'A' && c <= 'Z' ? c.toLowerCase() : c;
  }
  return out;
}

export interface UnicodeTable {
  /** The class, already including its case-fold equivalents when foldable. */
  ranges(fold: boolean): number[];
  /** Whether the class is to be inverted (\p{Assigned} is "not Cn"). */
  negated: boolean;
}

/** Go's unicodeTable: the table a \p name denotes, or undefined when there is none. */
export function unicodeTable(name: string): UnicodeTable | undefined {
  const canon = canonicalName(name);
  let prop: string | undefined;
  let negated = false;
  if (canon === 'Any') prop = 'Any';
  else if (canon === 'Assigned') {
    prop = 'Cn';
    negated = true;
  } else if (canon === 'Ascii') prop = 'ASCII';
  else if (canon === 'Lc') prop = 'LC';
  else if (CATEGORIES.has(canon)) prop = canon;
  else if (SCRIPTS.has(canon)) prop = `Script=${canon}`;
  else prop = ALIASES.get(canon);
  if (prop === undefined) return undefined;
  const p = prop;
  return {
    negated,
    ranges: (fold) => (fold ? foldedProperty(p) : property(p)),
  };
}

const propertyMemo = new Map<string, number[]>();
const foldedMemo = new Map<string, number[]>();

function foldedProperty(prop: string): number[] {
  let r = foldedMemo.get(prop);
  if (!r) {
    r = foldClosure(property(prop));
    foldedMemo.set(prop, r);
  }
  return r;
}

/** Code point ranges of a JS property escape, found by matching it over every code point. */
function property(prop: string): number[] {
  const hit = propertyMemo.get(prop);
  if (hit) return hit;
  const out: number[] = [];
  let re: RegExp;
  try {
    re = new RegExp(`\\p{${prop}}+`, 'gu');
  } catch {
    // A script this engine's Unicode version does not know yet: an empty class.
    propertyMemo.set(prop, out);
    return out;
  }
  const all = allCodePoints();
  for (const m of all.matchAll(re)) {
    const lo = unitToCodePoint(m.index);
    const hi = unitToCodePoint(m.index + m[0].length) - 1;
    out.push(lo, hi);
  }
  // Surrogates cannot sit in the scanned string; they share one category and script.
  if (new RegExp(`^\\p{${prop}}$`, 'u').test('\ud800')) out.push(0xd800, 0xdfff);
  const sorted = sortPairs(out);
  propertyMemo.set(prop, sorted);
  return sorted;
}

function sortPairs(r: number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < r.length; i += 2) pairs.push([r[i]!, r[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const n = out.length;
    if (n > 0 && lo <= out[n - 1]! + 1) out[n - 1] = Math.max(out[n - 1]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

let allMemo: string | undefined;

/** Every code point but the surrogates, in order: BMP as one unit each, the rest as two. */
function allCodePoints(): string {
  if (allMemo !== undefined) return allMemo;
  const chunks: string[] = [];
  const buf: number[] = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    buf.push(c);
    if (buf.length === 8192) {
      chunks.push(String.fromCodePoint(...buf));
      buf.length = 0;
    }
  }
  chunks.push(String.fromCodePoint(...buf));
  allMemo = chunks.join('');
  return allMemo;
}

function unitToCodePoint(u: number): number {
  if (u < 0xd800) return u;
  if (u < 0xf800) return u + 0x800;
  return 0x10000 + (u - 0xf800) / 2;
}

let orbitsMemo: { orbit: Map<number, number[]>; keys: number[] } | undefined;

/**
 * Case-fold orbits (Go's unicode.SimpleFold cycles): characters related by case mapping
 * are grouped, then split into the classes the engine's own /iu matching (simple case
 * folding) treats as equal, so e.g. ı stays apart from I and i as in Go.
 */
function orbits(): { orbit: Map<number, number[]>; keys: number[] } {
  if (orbitsMemo) return orbitsMemo;
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const join = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  const byUpper = new Map<string, number>();
  for (let c = MIN_FOLD; c <= MAX_FOLD; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    const lower = s.toLowerCase();
    const upper = s.toUpperCase();
    for (const m of [lower, upper]) if (m !== s && [...m].length === 1) join(c, m.codePointAt(0)!);
    // Characters whose uppercase is several letters (ß, ΐ, ﬅ) can still fold together.
    if ([...upper].length > 1) {
      const other = byUpper.get(upper);
      if (other === undefined) byUpper.set(upper, c);
      else join(c, other);
    }
  }
  const groups = new Map<number, number[]>();
  for (const c of parent.keys()) {
    const r = find(c);
    const g = groups.get(r);
    if (g) g.push(c);
    else groups.set(r, [c]);
  }
  const orbit = new Map<number, number[]>();
  for (const g of groups.values()) {
    const classes: { test: RegExp; members: number[] }[] = [];
    for (const c of g.sort((a, b) => a - b)) {
      const s = String.fromCodePoint(c);
      const k = classes.find((x) => x.test.test(s));
      if (k) k.members.push(c);
      else classes.push({ test: new RegExp(`^\\u{${c.toString(16)}}$`, 'iu'), members: [c] });
    }
    for (const k of classes)
      if (k.members.length > 1) for (const c of k.members) orbit.set(c, k.members);
  }
  orbitsMemo = { orbit, keys: [...orbit.keys()].sort((a, b) => a - b) };
  return orbitsMemo;
}

/** All code points fold-equivalent to c, c included, ascending. */
export function foldOrbit(c: number): readonly number[] {
  if (c < MIN_FOLD || c > MAX_FOLD) return [c];
  return orbits().orbit.get(c) ?? [c];
}

/** Code points in [lo, hi] that have fold-equivalents. */
export function foldableIn(lo: number, hi: number): number[] {
  if (hi < MIN_FOLD || lo > MAX_FOLD) return [];
  const keys = orbits().keys;
  let a = 0;
  let b = keys.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if (keys[m]! < lo) a = m + 1;
    else b = m;
  }
  const out: number[] = [];
  for (let i = a; i < keys.length && keys[i]! <= hi; i++) out.push(keys[i]!);
  return out;
}

/** The class plus everything equivalent to a member under simple case folding. */
export function foldClosure(r: readonly number[]): number[] {
  const out = [...r];
  for (let i = 0; i + 1 < r.length; i += 2)
    for (const c of foldableIn(r[i]!, r[i + 1]!)) for (const f of foldOrbit(c)) out.push(f, f);
  return sortPairs(out);
}
