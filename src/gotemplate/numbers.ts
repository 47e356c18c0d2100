// strconv.ParseInt/ParseUint/ParseFloat with base 0, as the template parser uses them
// for number literals: base prefixes, legacy octal, underscores between digits.

function lower(c: string): string {
  return c.toLowerCase();
}

export function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'box'.includes(lower(s[1]!))) {
    i = 2;
    saw = '0';
    hex = lower(s[1]!) === 'x';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && lower(c) >= 'a' && lower(c) <= 'f')) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

const MAX_U64 = (1n << 64n) - 1n;
const MAX_I64 = (1n << 63n) - 1n;
const MIN_I64 = -(1n << 63n);

/** strconv.ParseUint(s, 0, 64); undefined on any error. */
export function parseUint(s: string): bigint | undefined {
  if (s === '' || s[0] === '+' || s[0] === '-') return undefined;
  let base = 10;
  let body = s;
  if (s[0] === '0') {
    if (s.length >= 3 && lower(s[1]!) === 'x') {
      base = 16;
      body = s.slice(2);
    } else if (s.length >= 3 && lower(s[1]!) === 'o') {
      base = 8;
      body = s.slice(2);
    } else if (s.length >= 3 && lower(s[1]!) === 'b') {
      base = 2;
      body = s.slice(2);
    } else {
      base = 8;
      body = s.slice(1);
      if (body === '') return 0n;
    }
  }
  if (s.includes('_')) {
    if (!underscoreOK(s)) return undefined;
    body = body.replaceAll('_', '');
  }
  if (body === '') return undefined;
  const digits = '0123456789abcdef'.slice(0, base);
  let n = 0n;
  for (const c of body) {
    const d = digits.indexOf(lower(c));
    if (d < 0) return undefined;
    n = n * BigInt(base) + BigInt(d);
  }
  return n > MAX_U64 ? undefined : n;
}

/** strconv.ParseInt(s, 0, 64). */
export function parseInt64(s: string): bigint | undefined {
  let neg = false;
  let body = s;
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-';
    body = s.slice(1);
  }
  const u = parseUint(body);
  if (u === undefined) return undefined;
  const v = neg ? -u : u;
  return v > MAX_I64 || v < MIN_I64 ? undefined : v;
}

/** strconv.ParseFloat(s, 64) for the syntax the lexer lets through. */
export function parseFloat64(s: string): number | undefined {
  let body = s;
  let sign = 1;
  if (body[0] === '+' || body[0] === '-') {
    if (body[0] === '-') sign = -1;
    body = body.slice(1);
  }
  if (body.includes('_')) {
    if (!underscoreOK(s)) return undefined;
    body = body.replaceAll('_', '');
  }
  if (/^0[xX]/.test(body)) {
    const m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(body);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const mant = BigInt('0x' + ((m[1] ?? '') + (m[2] ?? '') || '0'));
    const exp = Number(m[3]) - 4 * (m[2] ?? '').length;
    return sign * Number(mant) * 2 ** exp;
  }
  if (!/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(body)) return undefined;
  const v = Number(body);
  if (!Number.isFinite(v)) return undefined; // Go reports a range error
  return sign * v;
}
