// strconv.Unquote / UnquoteChar for template string and character literals.

export class SyntaxError extends Error {
  constructor() {
    super('invalid syntax');
  }
}

/** Decode one (possibly escaped) character starting at s[i]; returns it and the next index. */
export function unquoteChar(s: string, i: number, quote: string): [string, number] {
  const c = s[i];
  if (c === undefined) throw new SyntaxError();
  if (c === quote && (quote === "'" || quote === '"')) throw new SyntaxError();
  if (c !== '\\') {
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    return [ch, i + ch.length];
  }
  const e = s[i + 1];
  i += 2;
  switch (e) {
    case 'a':
      return ['\x07', i];
    case 'b':
      return ['\b', i];
    case 'f':
      return ['\f', i];
    case 'n':
      return ['\n', i];
    case 'r':
      return ['\r', i];
    case 't':
      return ['\t', i];
    case 'v':
      return ['\v', i];
    case '\\':
      return ['\\', i];
    case "'":
    case '"':
      if (e !== quote) throw new SyntaxError();
      return [e, i];
    case 'x':
    case 'u':
    case 'U': {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = s.slice(i, i + n);
      if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) throw new SyntaxError();
      const v = parseInt(hex, 16);
      if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))) throw new SyntaxError();
      return [String.fromCodePoint(v), i + n];
    }
    default: {
      if (e !== undefined && e >= '0' && e <= '7') {
        const oct = s.slice(i - 1, i + 2);
        if (!/^[0-7]{3}$/.test(oct)) throw new SyntaxError();
        const v = parseInt(oct, 8);
        if (v > 255) throw new SyntaxError();
        return [String.fromCharCode(v), i + 2];
      }
      throw new SyntaxError();
    }
  }
}

export function unquote(s: string): string {
  const q = s[0];
  if (s.length < 2 || s[s.length - 1] !== q) throw new SyntaxError();
  const body = s.slice(1, -1);
  if (q === '`') {
    if (body.includes('`')) throw new SyntaxError();
    return body.replaceAll('\r', '');
  }
  if (q !== '"' && q !== "'") throw new SyntaxError();
  if (body.includes('\n')) throw new SyntaxError();
  if (!body.includes('\\') && !body.includes(q)) {
    if (q === '"') return body;
  }
  let out = '';
  let i = 0;
  while (i < body.length) {
    const [ch, next] = unquoteChar(body, i, q);
    out += ch;
    i = next;
    if (q === "'" && i < body.length) throw new SyntaxError();
  }
  if (q === "'" && [...out].length !== 1) throw new SyntaxError();
  return out;
}
