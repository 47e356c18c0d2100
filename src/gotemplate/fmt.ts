// Go's fmt verbs, for print/printf/println and for printing action results. Only the
// parts templates can reach: values are the GoValue model (no pointers, structs, channels).

import { GoFunc, GoInt, GoMap, GoObject, GoSlice, typeOf, utf8 } from './values.ts';
import type { GoValue } from './values.ts';

export interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | undefined;
  prec: number | undefined;
}

/** No flags, no width, no precision: plain `%v`. */
export const noFlags: Flags = {
  plus: false,
  minus: false,
  sharp: false,
  space: false,
  zero: false,
  width: undefined,
  prec: undefined,
};

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: readonly (GoValue | undefined)[]): string {
  let out = '';
  let prevString = false;
  args.forEach((a, i) => {
    const isString = typeof a === 'string';
    if (i > 0 && !isString && !prevString) out += ' ';
    out += formatValue(a, 'v', noFlags, 0);
    prevString = isString;
  });
  return out;
}

/** fmt.Sprintln: always spaces, then a newline. */
export function sprintln(args: readonly (GoValue | undefined)[]): string {
  return args.map((a) => formatValue(a, 'v', noFlags, 0)).join(' ') + '\n';
}

/** The text fmt.Print gives one value (what an action prints). */
export function printString(v: GoValue | undefined): string {
  if (typeof v === 'string') return v;
  return formatValue(v, 'v', noFlags, 0);
}

/** fmt.Sprintf. */
// eslint-disable-next-line max-lines-per-function -- a statement-for-statement port of Go's fmt.(*pp).doPrintf: kept whole so a difference the differential tests find maps onto Go's source line by line
export function sprintf(format: string, args: readonly (GoValue | undefined)[]): string {
  let out = '';
  let argNum = 0;
  let i = 0;
  const n = format.length;
  while (i < n) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const f: Flags = { ...noFlags };
    // Flags.
    for (; i < n; i++) {
      const c = format[i];
      if (c === '#') f.sharp = true;
      else if (c === '0') f.zero = true;
      else if (c === '+') f.plus = true;
      else if (c === '-') f.minus = true;
      else if (c === ' ') f.space = true;
      else break;
    }
    // Width.
    if (format[i] === '*') {
      i++;
      const a = args[argNum++];
      if (a instanceof GoInt) {
        let w = Number(a.v);
        if (w < 0) {
          f.minus = true;
          w = -w;
        }
        f.width = w;
      } else {
        out += '%!(BADWIDTH)';
      }
    } else {
      const start = i;
      while (i < n && format[i]! >= '0' && format[i]! <= '9') i++;
      if (i > start) f.width = Number(format.slice(start, i));
    }
    // Precision.
    if (format[i] === '.') {
      i++;
      if (format[i] === '*') {
        i++;
        const a = args[argNum++];
        if (a instanceof GoInt && a.v >= 0n) f.prec = Number(a.v);
        else out += '%!(BADPREC)';
      } else {
        const start = i;
        while (i < n && format[i]! >= '0' && format[i]! <= '9') i++;
        f.prec = Number(format.slice(start, i) || '0');
      }
    }
    if (f.minus) f.zero = false;
    if (i >= n) {
      out += '%!(NOVERB)';
      break;
    }
    const cp = format.codePointAt(i)!;
    const verb = String.fromCodePoint(cp);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatValue(args[argNum++], verb, f, 0);
  }
  if (argNum < args.length) {
    out +=
      '%!(EXTRA ' +
      args
        .slice(argNum)
        .map((a) =>
          a === undefined || a === null
            ? '<nil>'
            : `${typeOf(a)}=${formatValue(a, 'v', noFlags, 0)}`,
        )
        .join(', ') +
      ')';
  }
  return out;
}

function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

function pad(s: string, f: Flags, zeroOK = false): string {
  if (f.width === undefined) return s;
  const w = f.width - runeCount(s);
  if (w <= 0) return s;
  if (f.minus) return s + ' '.repeat(w);
  if (f.zero && zeroOK) {
    // Zero padding goes after the sign.
    const sign = s[0] === '-' || s[0] === '+' || s[0] === ' ' ? s[0] : '';
    return sign + '0'.repeat(w) + s.slice(sign.length);
  }
  // Strings and booleans are zero-padded too (fmt's padString), in front of everything.
  if (f.zero) return '0'.repeat(w) + s;
  return ' '.repeat(w) + s;
}

/** fmt's %!verb(type=value): the value printed with %v and the verb's own flags and width. */
function badVerb(v: GoValue | undefined, verb: string, f: Flags = noFlags): string {
  if (v === undefined || v === null) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeOf(v)}=${formatValue(v, 'v', f, 0)})`;
}

/** strconv.FormatFloat(v, 'x', -1, 64): the shortest hexadecimal mantissa, p±dd exponent. */
function hexFloat(v: number, upper: boolean): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  let out: string;
  if (v === 0) out = '0x0p+00';
  else {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, Math.abs(v));
    const bits = view.getBigUint64(0);
    let exp = Number((bits >> 52n) & 0x7ffn);
    let mant = bits & ((1n << 52n) - 1n);
    if (exp === 0) {
      // Subnormal: normalise so the leading digit is 1.
      exp = 1;
      while (!(mant & (1n << 52n))) {
        mant <<= 1n;
        exp--;
      }
      mant &= (1n << 52n) - 1n;
    }
    const e = exp - 1023;
    const frac = mant.toString(16).padStart(13, '0').replace(/0+$/, '');
    const es = `${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
    out = `0x1${frac ? '.' + frac : ''}p${es}`;
  }
  out = sign + out;
  return upper ? out.toUpperCase() : out;
}

export function formatValue(v: GoValue | undefined, verb: string, f: Flags, depth: number): string {
  if (verb === 'v' && (f.plus || f.sharp)) {
    // %+v only matters for structs; %#v is Go syntax.
    if (f.sharp) return pad(goSyntax(v), f);
    f = { ...f, plus: false };
  }
  if (depth > 0 && v === null) return '<nil>';
  if (verb === 'T') return pad(v === undefined || v === null ? '<nil>' : typeOf(v), f);
  if (v === undefined || v === null) {
    if (verb === 'v') return pad('<nil>', f);
    return badVerb(v, verb);
  }
  switch (typeof v) {
    case 'boolean':
      return verb === 't' || verb === 'v' ? pad(String(v), f) : badVerb(v, verb, f);
    case 'number':
      if (verb === 'x' || verb === 'X') return pad(hexFloat(v, verb === 'X'), f);
      return fmtFloat(v, verb, f) ?? badVerb(v, verb, f);
    case 'string':
      return fmtString(v, verb, f) ?? badVerb(v, verb, f);
  }
  if (v instanceof GoInt) return fmtInteger(v, verb, f) ?? badVerb(v, verb, f);
  if (v instanceof GoObject) {
    // Stringer: used for the verbs valid for strings.
    if ('vsqxX'.includes(verb)) return fmtString(v.str(), verb, f) ?? badVerb(v, verb);
    // Other verbs see the underlying value, which fmt can print for named integers.
    const n = v.intValue;
    if (n !== undefined) return fmtInteger(new GoInt('int', n), verb, f) ?? badVerb(v, verb);
    return badVerb(v, verb);
  }
  if (v instanceof GoFunc) return verb === 'v' || verb === 'p' ? '0x1' : badVerb(v, verb);
  if (v instanceof GoSlice) {
    const inner = v.items.map((e) => formatValue(e, verb, f, depth + 1));
    return `[${inner.join(' ')}]`;
  }
  if (v instanceof GoMap) {
    const inner = v
      .sortedKeys()
      .map(
        (k) =>
          `${formatValue(k, verb, f, depth + 1)}:${formatValue(v.entries.get(k) ?? null, verb, f, depth + 1)}`,
      );
    return `map[${inner.join(' ')}]`;
  }
  return badVerb(v, verb);
}

/** %#v. */
function goSyntax(v: GoValue | undefined): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return quoteGo(v);
  if (typeof v === 'number') return formatFloat(v, 'g', -1);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof GoInt) return v.v.toString();
  if (v instanceof GoSlice)
    return `${v.type}{${v.items.map((e) => (e === null ? 'interface {}(nil)' : goSyntax(e))).join(', ')}}`;
  if (v instanceof GoMap) {
    return `${v.type}{${v
      .sortedKeys()
      .map((k) => {
        const e = v.entries.get(k) ?? null;
        return `${quoteGo(k)}:${e === null ? 'interface {}(nil)' : goSyntax(e)}`;
      })
      .join(', ')}}`;
  }
  if (v instanceof GoObject) {
    // A GoStringer (time.Time) says how; a named integer is its number.
    const gs = v.methods.GoString?.impl([]);
    if (typeof gs === 'string') return gs;
    if (v.intValue !== undefined) return v.intValue.toString();
    return v.str();
  }
  return '0x1';
}

function fmtString(s: string, verb: string, f: Flags): string | undefined {
  switch (verb) {
    case 'v':
    case 's':
      if (f.prec !== undefined) s = [...s].slice(0, f.prec).join('');
      return pad(s, f);
    case 'q':
      if (f.prec !== undefined) s = [...s].slice(0, f.prec).join('');
      if (f.sharp && canBackquote(s)) return pad('`' + s + '`', f);
      return pad(quoteGo(s, f.plus), f);
    case 'x':
    case 'X': {
      let bytes = utf8.encode(s);
      if (f.prec !== undefined) bytes = bytes.slice(0, f.prec);
      const parts = [...bytes].map((b) => {
        let h = b.toString(16).padStart(2, '0');
        if (verb === 'X') h = h.toUpperCase();
        if (f.sharp && f.space) h = (verb === 'X' ? '0X' : '0x') + h;
        return h;
      });
      let out = parts.join(f.space ? ' ' : '');
      if (f.sharp && !f.space && out) out = (verb === 'X' ? '0X' : '0x') + out;
      return pad(out, f);
    }
  }
  return undefined;
}

function canBackquote(s: string): boolean {
  for (const ch of s) {
    if (ch === '`' || ch === '\ufffd') return false;
    const c = ch.codePointAt(0)!;
    if (c < 0x20 && c !== 0x09) return false;
    if (c === 0x7f) return false;
  }
  return true;
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** strconv.Quote (asciiOnly: strconv.QuoteToASCII). */
export function quoteGo(s: string, asciiOnly = false, quote = '"'): string {
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') {
      out += '\\' + ch;
      continue;
    }
    if (c < 0x80 ? c >= 0x20 && c < 0x7f : !asciiOnly && printable.test(ch)) {
      out += ch;
      continue;
    }
    switch (c) {
      case 7:
        out += '\\a';
        continue;
      case 8:
        out += '\\b';
        continue;
      case 12:
        out += '\\f';
        continue;
      case 10:
        out += '\\n';
        continue;
      case 13:
        out += '\\r';
        continue;
      case 9:
        out += '\\t';
        continue;
      case 11:
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if (c < 0x10000) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += '\\U' + c.toString(16).padStart(8, '0');
  }
  return out + quote;
}

function fmtInteger(x: GoInt, verb: string, f: Flags): string | undefined {
  const neg = x.v < 0n;
  let abs = neg ? -x.v : x.v;
  let digits: string;
  let prefix = '';
  switch (verb) {
    case 'v':
    case 'd':
      digits = abs.toString(10);
      break;
    case 'b':
      digits = abs.toString(2);
      if (f.sharp) prefix = '0b';
      break;
    case 'o':
    case 'O':
      digits = abs.toString(8);
      if (verb === 'O') prefix = '0o';
      else if (f.sharp) prefix = '0';
      break;
    case 'x':
      digits = abs.toString(16);
      if (f.sharp) prefix = '0x';
      break;
    case 'X':
      digits = abs.toString(16).toUpperCase();
      if (f.sharp) prefix = '0X';
      break;
    case 'c':
      return pad(String.fromCodePoint(Number(abs) > 0x10ffff ? 0xfffd : Number(abs)), f);
    case 'q':
      return pad(quoteGo(String.fromCodePoint(Number(abs)), f.plus, "'"), f);
    case 'U': {
      let h = abs.toString(16).toUpperCase().padStart(4, '0');
      h = 'U+' + h;
      if (f.sharp) h += ` '${String.fromCodePoint(Number(abs))}'`;
      return pad(h, f);
    }
    default:
      return undefined;
  }
  if (f.prec !== undefined) {
    if (f.prec === 0 && abs === 0n) digits = '';
    else digits = digits.padStart(f.prec, '0');
  } else if (f.zero && f.width !== undefined && !f.minus) {
    const signLen = neg || f.plus || f.space ? 1 : 0;
    digits = digits.padStart(f.width - signLen - prefix.length, '0');
  }
  abs = 0n;
  const sign = neg ? '-' : f.plus ? '+' : f.space ? ' ' : '';
  return pad(sign + prefix + digits, { ...f, zero: false });
}

// ---- floats ----

interface Decimal {
  digits: string; // no leading zeros, no trailing zeros; '' for zero
  dp: number; // decimal point position
}

const f64 = new DataView(new ArrayBuffer(8));

/** The exact decimal expansion of |v| (v finite). */
function exactDecimal(v: number): Decimal {
  f64.setFloat64(0, Math.abs(v));
  const hi = f64.getUint32(0);
  const lo = f64.getUint32(4);
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (bexp === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = bexp - 1075;
  }
  if (mant === 0n) return { digits: '', dp: 0 };
  let s: string;
  let dp: number;
  if (e >= 0) {
    s = (mant << BigInt(e)).toString();
    dp = s.length;
  } else {
    s = (mant * 5n ** BigInt(-e)).toString();
    dp = s.length + e;
  }
  s = s.replace(/0+$/, '');
  return { digits: s, dp };
}

/** Round a decimal to nd significant digits, half to even on exact ties (as strconv). */
function roundDecimal(d: Decimal, nd: number): Decimal {
  if (nd < 0) return { digits: '', dp: d.dp };
  if (d.digits.length <= nd) return d;
  const next = d.digits.charCodeAt(nd) - 48;
  let up: boolean;
  if (next > 5) up = true;
  else if (next < 5) up = false;
  else if (d.digits.length > nd + 1) up = true;
  else up = nd > 0 && (d.digits.charCodeAt(nd - 1) - 48) % 2 === 1;
  let kept = d.digits.slice(0, nd);
  let dp = d.dp;
  if (up) {
    let i = kept.length - 1;
    while (i >= 0 && kept[i] === '9') i--;
    if (i < 0) {
      kept = '1';
      dp++;
    } else {
      kept = kept.slice(0, i) + String.fromCharCode(kept.charCodeAt(i) + 1);
    }
  }
  return { digits: kept.replace(/0+$/, ''), dp };
}

/** Shortest digits that round-trip (JS and Go agree on these). */
function shortestDecimal(v: number): Decimal {
  if (v === 0) return { digits: '', dp: 0 };
  const s = Math.abs(v).toExponential();
  const [m, e] = s.split('e');
  const digits = m!.replace('.', '').replace(/0+$/, '');
  return { digits, dp: Number(e) + 1 };
}

function fmtE(d: Decimal, prec: number, e: string): string {
  const ds = d.digits || '0';
  let out = ds[0]!;
  if (prec > 0) {
    out += '.';
    out += ds.slice(1, prec + 1).padEnd(prec, '0');
  }
  const exp = d.digits ? d.dp - 1 : 0;
  const ae = Math.abs(exp);
  return out + e + (exp < 0 ? '-' : '+') + (ae < 10 ? '0' + ae : String(ae));
}

function fmtF(d: Decimal, prec: number): string {
  let out: string;
  if (d.dp > 0) {
    out = d.digits.slice(0, d.dp).padEnd(d.dp, '0');
  } else out = '0';
  if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) {
      const j = d.dp + i;
      out += j < 0 || j >= d.digits.length ? '0' : d.digits[j];
    }
  }
  return out;
}

/** strconv.FormatFloat(v, fmt, prec, 64). */
export function formatFloat(v: number, fmt: 'e' | 'E' | 'f' | 'g' | 'G', prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const neg = v < 0 || Object.is(v, -0);
  const shortest = prec < 0;
  let d: Decimal;
  if (shortest) {
    d = shortestDecimal(v);
    switch (fmt) {
      case 'e':
      case 'E':
        prec = Math.max(d.digits.length - 1, 0);
        break;
      case 'f':
        prec = Math.max(d.digits.length - d.dp, 0);
        break;
      default:
        prec = d.digits.length;
    }
  } else {
    const exact = exactDecimal(v);
    switch (fmt) {
      case 'e':
      case 'E':
        d = roundDecimal(exact, prec + 1);
        break;
      case 'f':
        d = roundDecimal(exact, exact.dp + prec);
        break;
      default:
        if (prec === 0) prec = 1;
        d = roundDecimal(exact, prec);
    }
  }
  let body: string;
  switch (fmt) {
    case 'e':
    case 'E':
      body = fmtE(d, prec, fmt);
      break;
    case 'f':
      body = fmtF(d, prec);
      break;
    default: {
      let eprec = prec;
      const nd = d.digits.length;
      if (eprec > nd && nd >= d.dp) eprec = nd;
      if (shortest) eprec = 6;
      const exp = d.dp - 1;
      if (d.digits && (exp < -4 || exp >= eprec)) {
        if (prec > nd) prec = nd;
        body = fmtE(d, prec - 1, fmt === 'g' ? 'e' : 'E');
      } else {
        if (prec > d.dp) prec = nd;
        body = fmtF(d, Math.max(prec - d.dp, 0));
      }
    }
  }
  return (neg ? '-' : '') + body;
}

function fmtFloat(v: number, verb: string, f: Flags): string | undefined {
  let s: string;
  switch (verb) {
    case 'v':
      s = formatFloat(v, 'g', f.prec ?? -1);
      break;
    case 'g':
    case 'G':
      s = formatFloat(v, verb, f.prec ?? -1);
      break;
    case 'e':
    case 'E':
    case 'f':
      s = formatFloat(v, verb, f.prec ?? 6);
      break;
    case 'F':
      s = formatFloat(v, 'f', f.prec ?? 6);
      break;
    default:
      return undefined;
  }
  if (f.sharp && !s.includes('.') && !/Inf|NaN/.test(s)) {
    const e = s.search(/[eE]/);
    s = e < 0 ? s + '.' : s.slice(0, e) + '.' + s.slice(e);
  }
  if (s[0] !== '-') {
    if (f.plus) s = '+' + s;
    else if (f.space) s = ' ' + s;
  } else if (s === '+Inf' && !f.plus) {
    s = f.space ? ' Inf' : '+Inf';
  }
  if (s.startsWith('+Inf') && !f.plus) s = f.space ? ' Inf' : '+Inf';
  const special = /Inf|NaN/.test(s);
  return pad(s, f, !special);
}
