// The syntax error encoding/json reports for invalid input, worded as Go words it (the
// scanner state machine of encoding/json/scanner.go, run over UTF-8 bytes). Only called
// once JSON.parse has already refused the text, so valid input never pays for it.

const MAX_NESTING_DEPTH = 10000;

type Container = 'objectKey' | 'objectValue' | 'arrayValue';
type Step = (c: number) => boolean;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean =>
  isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's quoteChar: a byte shown as a character literal (bytes ≥ 0x80 as U+0080..U+00FF). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  if (c === 0x07) return "'\\a'";
  if (c === 0x08) return "'\\b'";
  if (c === 0x0c) return "'\\f'";
  if (c === 0x0a) return "'\\n'";
  if (c === 0x0d) return "'\\r'";
  if (c === 0x09) return "'\\t'";
  if (c === 0x0b) return "'\\v'";
  if (c === 0x5c) return "'\\\\'";
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if (c >= 0x80 && c < 0xa0) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  if (c === 0xa0 || c === 0xad) return `'\\u00${c.toString(16)}'`;
  return `'${String.fromCharCode(c)}'`;
}

class Scanner {
  error: string | undefined;
  endTop = false;
  private readonly stack: Container[] = [];
  step: Step = (c) => this.beginValue(c);

  private fail(c: number, context: string): boolean {
    this.step = () => false;
    this.error = `invalid character ${quoteChar(c)} ${context}`;
    return false;
  }

  private push(c: number, container: Container): boolean {
    this.stack.push(container);
    return this.stack.length <= MAX_NESTING_DEPTH || this.fail(c, 'exceeded max depth');
  }

  private pop(): void {
    this.stack.pop();
    if (this.stack.length === 0) {
      this.step = (c) => this.endTopStep(c);
      this.endTop = true;
    } else this.step = (c) => this.endValue(c);
  }

  private literal(rest: string, name: string): Step {
    const expect =
      (i: number): Step =>
      (c) => {
        if (c !== rest.charCodeAt(i))
          return this.fail(c, `in literal ${name} (expecting '${rest[i]}')`);
        this.step = i + 1 < rest.length ? expect(i + 1) : (d) => this.endValue(d);
        return true;
      };
    return expect(0);
  }

  private beginValue(c: number): boolean {
    if (isSpace(c)) return true;
    switch (c) {
      case 0x7b: // {
        this.step = (d) => this.beginStringOrEmpty(d);
        return this.push(c, 'objectKey');
      case 0x5b: // [
        this.step = (d) => this.beginValueOrEmpty(d);
        return this.push(c, 'arrayValue');
      case 0x22:
        this.step = (d) => this.inString(d);
        return true;
      case 0x2d: // -
        this.step = (d) => this.neg(d);
        return true;
      case 0x30:
        this.step = (d) => this.zero(d);
        return true;
      case 0x74:
        this.step = this.literal('rue', 'true');
        return true;
      case 0x66:
        this.step = this.literal('alse', 'false');
        return true;
      case 0x6e:
        this.step = this.literal('ull', 'null');
        return true;
    }
    if (c >= 0x31 && c <= 0x39) {
      this.step = (d) => this.digits(d);
      return true;
    }
    return this.fail(c, 'looking for beginning of value');
  }

  private beginValueOrEmpty(c: number): boolean {
    if (isSpace(c)) return true;
    return c === 0x5d ? this.endValue(c) : this.beginValue(c);
  }

  private beginStringOrEmpty(c: number): boolean {
    if (isSpace(c)) return true;
    if (c === 0x7d) {
      this.stack[this.stack.length - 1] = 'objectValue';
      return this.endValue(c);
    }
    return this.beginString(c);
  }

  private beginString(c: number): boolean {
    if (isSpace(c)) return true;
    if (c === 0x22) {
      this.step = (d) => this.inString(d);
      return true;
    }
    return this.fail(c, 'looking for beginning of object key string');
  }

  private endValue(c: number): boolean {
    const n = this.stack.length;
    if (n === 0) {
      this.step = (d) => this.endTopStep(d);
      this.endTop = true;
      return this.endTopStep(c);
    }
    if (isSpace(c)) {
      this.step = (d) => this.endValue(d);
      return true;
    }
    switch (this.stack[n - 1]) {
      case 'objectKey':
        if (c === 0x3a) {
          this.stack[n - 1] = 'objectValue';
          this.step = (d) => this.beginValue(d);
          return true;
        }
        return this.fail(c, 'after object key');
      case 'objectValue':
        if (c === 0x2c) {
          this.stack[n - 1] = 'objectKey';
          this.step = (d) => this.beginString(d);
          return true;
        }
        if (c === 0x7d) {
          this.pop();
          return true;
        }
        return this.fail(c, 'after object key:value pair');
      default:
        if (c === 0x2c) {
          this.step = (d) => this.beginValue(d);
          return true;
        }
        if (c === 0x5d) {
          this.pop();
          return true;
        }
        return this.fail(c, 'after array element');
    }
  }

  /** Go records the error but keeps scanning; the first error is the one reported. */
  private endTopStep(c: number): boolean {
    if (!isSpace(c)) this.fail(c, 'after top-level value');
    return true;
  }

  private inString(c: number): boolean {
    if (c === 0x22) {
      this.step = (d) => this.endValue(d);
      return true;
    }
    if (c === 0x5c) {
      this.step = (d) => this.inStringEscape(d);
      return true;
    }
    return c >= 0x20 || this.fail(c, 'in string literal');
  }

  private inStringEscape(c: number): boolean {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) {
      this.step = (d) => this.inString(d);
      return true;
    }
    if (c === 0x75) {
      this.step = this.hexEscape(4);
      return true;
    }
    return this.fail(c, 'in string escape code');
  }

  private hexEscape(left: number): Step {
    return (c) => {
      if (!isHex(c)) return this.fail(c, 'in \\u hexadecimal character escape');
      this.step = left > 1 ? this.hexEscape(left - 1) : (d) => this.inString(d);
      return true;
    };
  }

  private neg(c: number): boolean {
    if (c === 0x30) {
      this.step = (d) => this.zero(d);
      return true;
    }
    if (c >= 0x31 && c <= 0x39) {
      this.step = (d) => this.digits(d);
      return true;
    }
    return this.fail(c, 'in numeric literal');
  }

  private digits(c: number): boolean {
    return isDigit(c) || this.zero(c);
  }

  private zero(c: number): boolean {
    if (c === 0x2e) {
      this.step = (d) => this.dot(d);
      return true;
    }
    if (c === 0x65 || c === 0x45) {
      this.step = (d) => this.exponent(d);
      return true;
    }
    return this.endValue(c);
  }

  private dot(c: number): boolean {
    if (isDigit(c)) {
      this.step = (d) => this.fraction(d);
      return true;
    }
    return this.fail(c, 'after decimal point in numeric literal');
  }

  private fraction(c: number): boolean {
    if (isDigit(c)) return true;
    if (c === 0x65 || c === 0x45) {
      this.step = (d) => this.exponent(d);
      return true;
    }
    return this.endValue(c);
  }

  private exponent(c: number): boolean {
    if (c === 0x2b || c === 0x2d) {
      this.step = (d) => this.exponentSign(d);
      return true;
    }
    return this.exponentSign(c);
  }

  private exponentSign(c: number): boolean {
    if (isDigit(c)) {
      this.step = (d) => (isDigit(d) ? true : this.endValue(d));
      return true;
    }
    return this.fail(c, 'in exponent of numeric literal');
  }
}

/** Go's json.Unmarshal syntax error for `text`, or undefined when the syntax is valid. */
export function goJsonSyntaxError(text: string): string | undefined {
  const s = new Scanner();
  for (const c of Buffer.from(text, 'utf8')) {
    if (!s.step(c) && s.error !== undefined) return s.error;
  }
  if (s.error !== undefined) return s.error;
  if (s.endTop) return undefined;
  // Like Go, end of input is first offered to the state as a space: "1." then fails
  // "after decimal point", while "[1" runs out of input.
  s.step(0x20);
  if (s.error !== undefined) return s.error;
  return s.endTop ? undefined : 'unexpected end of JSON input';
}
