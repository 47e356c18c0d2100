// A port of text/template/parse's lexer. Go lexes lazily while parsing, but the lexer
// never depends on parser state (apart from break/continue being keywords, which they
// always are here), so lexing everything up front yields the same item sequence.

export enum ItemType {
  Error,
  Bool,
  Char,
  CharConstant,
  Comment,
  Complex,
  Assign,
  Declare,
  EOF,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  // Keywords come after this marker.
  Keyword,
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Nil,
  Range,
  Template,
  With,
}

export interface Item {
  type: ItemType;
  pos: number;
  val: string;
  line: number;
}

const keywords: Record<string, ItemType> = {
  '.': ItemType.Dot,
  block: ItemType.Block,
  break: ItemType.Break,
  continue: ItemType.Continue,
  define: ItemType.Define,
  else: ItemType.Else,
  end: ItemType.End,
  if: ItemType.If,
  range: ItemType.Range,
  nil: ItemType.Nil,
  template: ItemType.Template,
  with: ItemType.With,
};

const leftDelim = '{{';
const rightDelim = '}}';
const leftComment = '/*';
const rightComment = '*/';

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

function isAlphaNumeric(c: string | undefined): boolean {
  if (c === undefined) return false;
  if (c === '_') return true;
  return /^[\p{L}\p{Nd}]$/u.test(c);
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s[at] === '-' && isSpace(s[at + 1]);
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return isSpace(s[at]) && s[at + 1] === '-';
}

/** Go's %q-like quoting for a rune in "bad character" messages (%#U). */
function runeU(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}

class Lexer {
  readonly items: Item[] = [];
  private pos = 0;
  private start = 0;
  private line = 1;
  private startLine = 1;
  private parenDepth = 0;
  private done = false;

  constructor(private input: string) {}

  private next(): string | undefined {
    if (this.pos >= this.input.length) {
      this.pos = this.input.length + 1; // remember we hit EOF so backup() is a no-op
      return undefined;
    }
    const c = this.input[this.pos]!;
    this.pos++;
    if (c === '\n') this.line++;
    return c;
  }

  private peek(): string | undefined {
    return this.input[this.pos];
  }

  private backup(): void {
    if (this.pos > this.input.length) {
      this.pos = this.input.length;
      return;
    }
    if (this.pos > 0) {
      this.pos--;
      if (this.input[this.pos] === '\n') this.line--;
    }
  }

  private emit(type: ItemType): void {
    this.items.push({
      type,
      pos: this.start,
      val: this.input.slice(this.start, this.pos),
      line: this.startLine,
    });
    this.start = this.pos;
    this.startLine = this.line;
  }

  private ignore(): void {
    this.line += count(this.input.slice(this.start, this.pos), '\n');
    this.start = this.pos;
    this.startLine = this.line;
  }

  private errorf(msg: string): void {
    this.items.push({ type: ItemType.Error, pos: this.start, val: msg, line: this.startLine });
    this.items.push({ type: ItemType.EOF, pos: 0, val: 'EOF', line: this.startLine });
    this.done = true;
  }

  private accept(valid: string): boolean {
    const c = this.next();
    if (c !== undefined && valid.includes(c)) return true;
    this.backup();
    return false;
  }

  private acceptRun(valid: string): void {
    for (;;) {
      const c = this.next();
      if (c === undefined || !valid.includes(c)) break;
    }
    this.backup();
  }

  private atRightDelim(): { delim: boolean; trimSpace: boolean } {
    if (
      hasRightTrimMarker(this.input, this.pos) &&
      this.input.startsWith(rightDelim, this.pos + 2)
    ) {
      return { delim: true, trimSpace: true };
    }
    if (this.input.startsWith(rightDelim, this.pos)) return { delim: true, trimSpace: false };
    return { delim: false, trimSpace: false };
  }

  private atTerminator(): boolean {
    const r = this.peek();
    if (r === undefined || isSpace(r)) return true;
    switch (r) {
      case '.':
      case ',':
      case '|':
      case ':':
      case ')':
      case '(':
        return true;
    }
    return this.input.startsWith(rightDelim, this.pos);
  }

  run(): Item[] {
    let state: (() => unknown) | null = () => this.lexText();
    while (!this.done && state) {
      state = state() as (() => unknown) | null;
    }
    return this.items;
  }

  private lexText(): (() => unknown) | null {
    const x = this.input.indexOf(leftDelim, this.pos);
    if (x >= 0) {
      if (x > this.pos) {
        this.pos = x;
        let trimLength = 0;
        if (hasLeftTrimMarker(this.input, this.pos + leftDelim.length)) {
          trimLength = rightTrimLength(this.input.slice(this.start, this.pos));
        }
        this.pos -= trimLength;
        this.line += count(this.input.slice(this.start, this.pos), '\n');
        const val = this.input.slice(this.start, this.pos);
        const item: Item = { type: ItemType.Text, pos: this.start, val, line: this.startLine };
        this.start = this.pos;
        this.startLine = this.line;
        this.pos += trimLength;
        this.ignore();
        if (val.length > 0) this.items.push(item);
      }
      return () => this.lexLeftDelim();
    }
    this.pos = this.input.length;
    if (this.pos > this.start) {
      this.line += count(this.input.slice(this.start, this.pos), '\n');
      this.emit(ItemType.Text);
    }
    this.emit(ItemType.EOF);
    return null;
  }

  private lexLeftDelim(): (() => unknown) | null {
    this.pos += leftDelim.length;
    const trimSpace = hasLeftTrimMarker(this.input, this.pos);
    const afterMarker = trimSpace ? 2 : 0;
    if (this.input.startsWith(leftComment, this.pos + afterMarker)) {
      this.pos += afterMarker;
      this.ignore();
      return () => this.lexComment();
    }
    this.emit(ItemType.LeftDelim);
    this.pos += afterMarker;
    this.ignore();
    this.parenDepth = 0;
    return () => this.lexInsideAction();
  }

  private lexComment(): (() => unknown) | null {
    this.pos += leftComment.length;
    const x = this.input.indexOf(rightComment, this.pos);
    if (x < 0) {
      this.errorf('unclosed comment');
      return null;
    }
    this.pos = x + rightComment.length;
    const { delim, trimSpace } = this.atRightDelim();
    if (!delim) {
      this.errorf('comment ends before closing delimiter');
      return null;
    }
    // Comments are dropped (Go emits them only in ParseComments mode).
    if (trimSpace) this.pos += 2;
    this.pos += rightDelim.length;
    if (trimSpace) this.pos += leftTrimLength(this.input, this.pos);
    this.ignore();
    return () => this.lexText();
  }

  private lexRightDelim(): (() => unknown) | null {
    const trimSpace = hasRightTrimMarker(this.input, this.pos);
    if (trimSpace) {
      this.pos += 2;
      this.ignore();
    }
    this.pos += rightDelim.length;
    this.emit(ItemType.RightDelim);
    if (trimSpace) {
      this.pos += leftTrimLength(this.input, this.pos);
      this.ignore();
    }
    return () => this.lexText();
  }

  private lexInsideAction(): (() => unknown) | null {
    const { delim } = this.atRightDelim();
    if (delim) {
      if (this.parenDepth === 0) return () => this.lexRightDelim();
      this.errorf('unclosed left paren');
      return null;
    }
    const r = this.next();
    if (r === undefined) {
      this.errorf('unclosed action');
      return null;
    }
    if (isSpace(r)) {
      this.backup();
      return () => this.lexSpace();
    }
    switch (r) {
      case '=':
        this.emit(ItemType.Assign);
        return () => this.lexInsideAction();
      case ':':
        if (this.next() !== '=') {
          this.errorf('expected :=');
          return null;
        }
        this.emit(ItemType.Declare);
        return () => this.lexInsideAction();
      case '|':
        this.emit(ItemType.Pipe);
        return () => this.lexInsideAction();
      case '"':
        return () => this.lexQuote();
      case '`':
        return () => this.lexRawQuote();
      case '$':
        return () => this.lexVariable();
      case "'":
        return () => this.lexChar();
      case '(':
        this.parenDepth++;
        this.emit(ItemType.LeftParen);
        return () => this.lexInsideAction();
      case ')':
        this.parenDepth--;
        if (this.parenDepth < 0) {
          this.errorf('unexpected right paren');
          return null;
        }
        this.emit(ItemType.RightParen);
        return () => this.lexInsideAction();
    }
    if (r === '.') {
      const c = this.input[this.pos];
      if (this.pos < this.input.length && (c! < '0' || c! > '9')) return () => this.lexField();
    }
    if (r === '.' || r === '+' || r === '-' || (r >= '0' && r <= '9')) {
      this.backup();
      return () => this.lexNumber();
    }
    if (isAlphaNumeric(r)) {
      this.backup();
      return () => this.lexIdentifier();
    }
    // JS strings are UTF-16: take a whole code point for the message.
    const cp = this.input.codePointAt(this.pos - 1) ?? 0;
    if (cp <= 0x7f && cp >= 0x20 && cp !== 0x7f) {
      this.emit(ItemType.Char);
      return () => this.lexInsideAction();
    }
    this.errorf(`unrecognized character in action: ${runeU(String.fromCodePoint(cp))}`);
    return null;
  }

  private lexSpace(): (() => unknown) | null {
    let numSpaces = 0;
    while (isSpace(this.peek())) {
      this.next();
      numSpaces++;
    }
    if (
      hasRightTrimMarker(this.input, this.pos - 1) &&
      this.input.startsWith(rightDelim, this.pos + 1)
    ) {
      this.backup();
      if (numSpaces === 1) return () => this.lexRightDelim();
    }
    this.emit(ItemType.Space);
    return () => this.lexInsideAction();
  }

  private lexIdentifier(): (() => unknown) | null {
    for (;;) {
      const r = this.next();
      if (isAlphaNumeric(r)) continue;
      this.backup();
      const word = this.input.slice(this.start, this.pos);
      if (!this.atTerminator()) {
        this.errorf(`bad character ${runeU(r ?? '')}`);
        return null;
      }
      const kw = keywords[word];
      if (kw !== undefined && kw > ItemType.Keyword) this.emit(kw);
      else if (word[0] === '.') this.emit(ItemType.Field);
      else if (word === 'true' || word === 'false') this.emit(ItemType.Bool);
      else this.emit(ItemType.Identifier);
      return () => this.lexInsideAction();
    }
  }

  private lexField(): (() => unknown) | null {
    return this.lexFieldOrVariable(ItemType.Field);
  }

  private lexVariable(): (() => unknown) | null {
    if (this.atTerminator()) {
      this.emit(ItemType.Variable);
      return () => this.lexInsideAction();
    }
    return this.lexFieldOrVariable(ItemType.Variable);
  }

  private lexFieldOrVariable(type: ItemType): (() => unknown) | null {
    if (this.atTerminator()) {
      this.emit(type === ItemType.Variable ? ItemType.Variable : ItemType.Dot);
      return () => this.lexInsideAction();
    }
    let r: string | undefined;
    for (;;) {
      r = this.next();
      if (!isAlphaNumeric(r)) {
        this.backup();
        break;
      }
    }
    if (!this.atTerminator()) {
      this.errorf(`bad character ${runeU(r ?? '')}`);
      return null;
    }
    this.emit(type);
    return () => this.lexInsideAction();
  }

  private lexChar(): (() => unknown) | null {
    for (;;) {
      let r = this.next();
      if (r === '\\') {
        r = this.next();
        if (r !== undefined && r !== '\n') continue;
        this.errorf('unterminated character constant');
        return null;
      }
      if (r === undefined || r === '\n') {
        this.errorf('unterminated character constant');
        return null;
      }
      if (r === "'") break;
    }
    this.emit(ItemType.CharConstant);
    return () => this.lexInsideAction();
  }

  private lexNumber(): (() => unknown) | null {
    if (!this.scanNumber()) {
      this.errorf(`bad number syntax: ${JSON.stringify(this.input.slice(this.start, this.pos))}`);
      return null;
    }
    const sign = this.peek();
    if (sign === '+' || sign === '-') {
      if (!this.scanNumber() || this.input[this.pos - 1] !== 'i') {
        this.errorf(`bad number syntax: ${JSON.stringify(this.input.slice(this.start, this.pos))}`);
        return null;
      }
      this.emit(ItemType.Complex);
      return () => this.lexInsideAction();
    }
    this.emit(ItemType.Number);
    return () => this.lexInsideAction();
  }

  private scanNumber(): boolean {
    this.accept('+-');
    let digits = '0123456789_';
    if (this.accept('0')) {
      if (this.accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (this.accept('oO')) digits = '01234567_';
      else if (this.accept('bB')) digits = '01_';
    }
    this.acceptRun(digits);
    if (this.accept('.')) this.acceptRun(digits);
    if (digits.length === 11 && this.accept('eE')) {
      this.accept('+-');
      this.acceptRun('0123456789_');
    }
    if (digits.length === 23 && this.accept('pP')) {
      this.accept('+-');
      this.acceptRun('0123456789_');
    }
    this.accept('i');
    if (isAlphaNumeric(this.peek())) {
      this.next();
      return false;
    }
    return true;
  }

  private lexQuote(): (() => unknown) | null {
    for (;;) {
      let r = this.next();
      if (r === '\\') {
        r = this.next();
        if (r !== undefined && r !== '\n') continue;
        this.errorf('unterminated quoted string');
        return null;
      }
      if (r === undefined || r === '\n') {
        this.errorf('unterminated quoted string');
        return null;
      }
      if (r === '"') break;
    }
    this.emit(ItemType.String);
    return () => this.lexInsideAction();
  }

  private lexRawQuote(): (() => unknown) | null {
    const x = this.input.indexOf('`', this.pos);
    if (x < 0) {
      this.errorf('unterminated raw quoted string');
      return null;
    }
    this.line += count(this.input.slice(this.pos, x + 1), '\n');
    this.pos = x + 1;
    this.emit(ItemType.RawString);
    return () => this.lexInsideAction();
  }
}

function count(s: string, c: string): number {
  let n = 0;
  for (let i = s.indexOf(c); i >= 0; i = s.indexOf(c, i + 1)) n++;
  return n;
}

function rightTrimLength(s: string): number {
  let i = s.length;
  while (i > 0 && isSpace(s[i - 1])) i--;
  return s.length - i;
}

function leftTrimLength(s: string, from: number): number {
  let i = from;
  while (i < s.length && isSpace(s[i])) i++;
  return i - from;
}

export function lex(input: string): Item[] {
  return new Lexer(input).run();
}
