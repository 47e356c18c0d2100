// A port of text/template/parse's recursive-descent parser, so that what parses, what
// fails and the error text all match Go.

import type {
  BranchNode,
  CommandNode,
  ListNode,
  Node,
  NumberNode,
  PipeNode,
  TemplateNode,
  VariableNode,
} from './ast.ts';
import { nodeString } from './ast.ts';
import { TemplateError } from './errors.ts';
import { quoteGo } from './fmt.ts';
import { ItemType, lex } from './lexer.ts';
import type { Item } from './lexer.ts';
import { parseFloat64, parseInt64, parseUint } from './numbers.ts';
import { SyntaxError as UnquoteError, unquote, unquoteChar } from './unquote.ts';

export interface Tree {
  /** The template's name (a define's name, or the name parsed under). */
  name: string;
  /** The name given to Parse; Go reports locations against it. */
  parseName: string;
  /** The whole source text, for line/column of execution errors. */
  text: string;
  root: ListNode;
}

function itemString(i: Item): string {
  if (i.type === ItemType.EOF) return 'EOF';
  if (i.type === ItemType.Error) return i.val;
  if (i.type > ItemType.Keyword) return `<${i.val}>`;
  if ([...i.val].length > 10) return quoteGo([...i.val].slice(0, 10).join('')) + '...';
  return quoteGo(i.val);
}

function isEmptyTree(n: Node): boolean {
  switch (n.kind) {
    case 'list':
      return n.nodes.every(isEmptyTree);
    case 'text':
      return n.text.trim() === '';
    default:
      return false;
  }
}

class Parser {
  private items: Item[];
  private i = 0;
  private furthest = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private actionLine = 0;

  constructor(
    private name: string,
    private readonly parseName: string,
    private readonly text: string,
    items: Item[],
    private readonly hasFunction: (name: string) => boolean,
    private readonly treeSet: Map<string, Tree>,
    shared?: { items: Item[] },
  ) {
    this.items = shared?.items ?? items;
  }

  // Sub-parsers (define, block) continue on the same token stream.
  private sub(name: string): Parser {
    const p = new Parser(
      name,
      this.parseName,
      this.text,
      this.items,
      this.hasFunction,
      this.treeSet,
    );
    p.i = this.i;
    p.furthest = this.furthest;
    return p;
  }

  private sync(from: Parser): void {
    this.i = from.i;
    this.furthest = Math.max(this.furthest, from.furthest);
  }

  errorf(msg: string): never {
    const line = this.items[Math.min(this.furthest, this.items.length - 1)]?.line ?? 1;
    throw new TemplateError(
      `template: ${this.parseName}:${line}: ${msg}`,
      'parse',
      this.parseName,
      line,
    );
  }

  private next(): Item {
    const it = this.items[this.i] ?? this.items[this.items.length - 1]!;
    if (this.i < this.items.length - 1) this.i++;
    else this.i = this.items.length; // past EOF stays at EOF
    this.furthest = Math.max(this.furthest, Math.min(this.i - 1, this.items.length - 1));
    return it;
  }

  private backup(n = 1): void {
    this.i -= n;
  }

  private peek(): Item {
    const it = this.next();
    this.backup();
    return it;
  }

  private nextNonSpace(): Item {
    let it: Item;
    do it = this.next();
    while (it.type === ItemType.Space);
    return it;
  }

  private peekNonSpace(): Item {
    const it = this.nextNonSpace();
    this.backup();
    return it;
  }

  private expect(type: ItemType, context: string): Item {
    const it = this.nextNonSpace();
    if (it.type !== type) this.unexpected(it, context);
    return it;
  }

  private expectOneOf(a: ItemType, b: ItemType, context: string): Item {
    const it = this.nextNonSpace();
    if (it.type !== a && it.type !== b) this.unexpected(it, context);
    return it;
  }

  private unexpected(it: Item, context: string): never {
    if (it.type === ItemType.Error) {
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== it.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`;
        if (it.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      this.errorf(`${it.val}${extra}`);
    }
    this.errorf(`unexpected ${itemString(it)} in ${context}`);
  }

  private add(root: ListNode): void {
    const existing = this.treeSet.get(this.name);
    if (!existing || isEmptyTree(existing.root)) {
      this.treeSet.set(this.name, {
        name: this.name,
        parseName: this.parseName,
        text: this.text,
        root,
      });
      return;
    }
    if (!isEmptyTree(root))
      this.errorf(`template: multiple definition of template ${quoteGo(this.name)}`);
  }

  parse(): void {
    const root: ListNode = { kind: 'list', pos: this.peek().pos, nodes: [] };
    while (this.peek().type !== ItemType.EOF) {
      if (this.peek().type === ItemType.LeftDelim) {
        const mark = this.i;
        this.next();
        if (this.nextNonSpace().type === ItemType.Define) {
          const p = this.sub('definition');
          p.parseDefinition();
          this.sync(p);
          continue;
        }
        this.i = mark;
      }
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') this.errorf(`unexpected ${nodeString(n)}`);
      root.nodes.push(n);
    }
    this.add(root);
  }

  private parseDefinition(): void {
    const context = 'define clause';
    const nameTok = this.expectOneOf(ItemType.String, ItemType.RawString, context);
    this.name = this.unquoteOrFail(nameTok.val);
    this.expect(ItemType.RightDelim, context);
    const [root, end] = this.itemList();
    if (end.kind !== 'end') this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add(root);
  }

  private unquoteOrFail(s: string): string {
    try {
      return unquote(s);
    } catch (e) {
      if (e instanceof UnquoteError) this.errorf('invalid syntax');
      throw e;
    }
  }

  private itemList(): [ListNode, Node] {
    const list: ListNode = { kind: 'list', pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().type !== ItemType.EOF) {
      const n = this.textOrAction();
      if (n.kind === 'end' || n.kind === 'else') return [list, n];
      list.nodes.push(n);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): Node {
    const tok = this.nextNonSpace();
    switch (tok.type) {
      case ItemType.Text:
        return { kind: 'text', pos: tok.pos, text: tok.val };
      case ItemType.LeftDelim: {
        this.actionLine = tok.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      default:
        this.unexpected(tok, 'input');
    }
  }

  private action(): Node {
    const tok = this.nextNonSpace();
    switch (tok.type) {
      case ItemType.Block:
        return this.blockControl();
      case ItemType.Break:
        return this.breakControl(tok, 'break');
      case ItemType.Continue:
        return this.breakControl(tok, 'continue');
      case ItemType.Else:
        return this.elseControl();
      case ItemType.End:
        return { kind: 'end', pos: this.expect(ItemType.RightDelim, 'end').pos };
      case ItemType.If:
        return { kind: 'if', ...this.parseControl('if') };
      case ItemType.Range:
        return { kind: 'range', ...this.parseControl('range') };
      case ItemType.Template:
        return this.templateControl();
      case ItemType.With:
        return { kind: 'with', ...this.parseControl('with') };
    }
    this.backup();
    const t = this.peek();
    return {
      kind: 'action',
      pos: t.pos,
      line: t.line,
      pipe: this.pipeline('command', ItemType.RightDelim),
    };
  }

  private breakControl(tok: Item, word: 'break' | 'continue'): Node {
    const t = this.nextNonSpace();
    if (t.type !== ItemType.RightDelim) this.unexpected(t, `{{${word}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${word}}} outside {{range}}`);
    return { kind: word, pos: tok.pos, line: tok.line };
  }

  private pipeline(context: string, end: ItemType): PipeNode {
    const tok = this.peekNonSpace();
    const pipe: PipeNode = {
      kind: 'pipe',
      pos: tok.pos,
      line: tok.line,
      isAssign: false,
      decl: [],
      cmds: [],
    };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== ItemType.Variable) break;
      const mark = this.i;
      this.next();
      const tokenAfterVariable = this.peek();
      const next = this.peekNonSpace();
      if (next.type === ItemType.Assign || next.type === ItemType.Declare) {
        pipe.isAssign = next.type === ItemType.Assign;
        this.nextNonSpace();
        pipe.decl.push({ kind: 'variable', pos: v.pos, ident: v.val.split('.') });
        this.vars.push(v.val);
        break;
      } else if (next.type === ItemType.Char && next.val === ',') {
        this.nextNonSpace();
        pipe.decl.push({ kind: 'variable', pos: v.pos, ident: v.val.split('.') });
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const p = this.peekNonSpace().type;
          if (p === ItemType.Variable || p === ItemType.RightDelim || p === ItemType.RightParen)
            continue;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      } else {
        void tokenAfterVariable;
        this.i = mark;
        break;
      }
    }
    for (;;) {
      const tok2 = this.nextNonSpace();
      switch (tok2.type) {
        case end:
          this.checkPipeline(pipe, context);
          return pipe;
        case ItemType.Bool:
        case ItemType.CharConstant:
        case ItemType.Complex:
        case ItemType.Dot:
        case ItemType.Field:
        case ItemType.Identifier:
        case ItemType.Number:
        case ItemType.Nil:
        case ItemType.RawString:
        case ItemType.String:
        case ItemType.Variable:
        case ItemType.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(tok2, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const k = c.args[0]!.kind;
      if (k === 'bool' || k === 'dot' || k === 'nil' || k === 'number' || k === 'string') {
        this.errorf(`non executable command in pipeline stage ${i + 2}`);
      }
    });
  }

  private parseControl(context: string): Omit<BranchNode, never> {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, ItemType.RightDelim);
      if (context === 'range') this.rangeDepth++;
      const [list, first] = this.itemList();
      let next = first;
      if (context === 'range') this.rangeDepth--;
      let elseList: ListNode | undefined;
      if (next.kind === 'else') {
        if (context === 'if' && this.peek().type === ItemType.If) {
          this.next();
          elseList = {
            kind: 'list',
            pos: next.pos,
            nodes: [{ kind: 'if', ...this.parseControl('if') }],
          };
        } else if (context === 'with' && this.peek().type === ItemType.With) {
          this.next();
          elseList = {
            kind: 'list',
            pos: next.pos,
            nodes: [{ kind: 'with', ...this.parseControl('with') }],
          };
        } else {
          let end: Node;
          [elseList, end] = this.itemList();
          next = end;
          if (next.kind !== 'end') this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      return { pos: pipe.pos, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private elseControl(): Node {
    const p = this.peekNonSpace();
    if (p.type === ItemType.If || p.type === ItemType.With)
      return { kind: 'else', pos: p.pos, line: p.line };
    const tok = this.expect(ItemType.RightDelim, 'else');
    return { kind: 'else', pos: tok.pos, line: tok.line };
  }

  private blockControl(): Node {
    const context = 'block clause';
    const tok = this.nextNonSpace();
    const name = this.parseTemplateName(tok, context);
    const pipe = this.pipeline(context, ItemType.RightDelim);
    const p = this.sub(name);
    const [root, end] = p.itemList();
    if (end.kind !== 'end') this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    p.add(root);
    this.sync(p);
    return { kind: 'template', pos: tok.pos, line: tok.line, name, pipe } satisfies TemplateNode;
  }

  private templateControl(): Node {
    const context = 'template clause';
    const tok = this.nextNonSpace();
    const name = this.parseTemplateName(tok, context);
    let pipe: PipeNode | undefined;
    if (this.nextNonSpace().type !== ItemType.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, ItemType.RightDelim);
    }
    return { kind: 'template', pos: tok.pos, line: tok.line, name, pipe };
  }

  private parseTemplateName(tok: Item, context: string): string {
    if (tok.type === ItemType.String || tok.type === ItemType.RawString)
      return this.unquoteOrFail(tok.val);
    this.unexpected(tok, context);
  }

  private command(): CommandNode {
    const cmd: CommandNode = { kind: 'command', pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const tok = this.next();
      if (tok.type === ItemType.Space) continue;
      if (tok.type === ItemType.RightDelim || tok.type === ItemType.RightParen) this.backup();
      else if (tok.type !== ItemType.Pipe) this.unexpected(tok, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  private operand(): Node | undefined {
    let node = this.term();
    if (!node) return undefined;
    if (this.peek().type === ItemType.Field) {
      const pos = this.peek().pos;
      const fields: string[] = [];
      while (this.peek().type === ItemType.Field)
        fields.push(...this.next().val.slice(1).split('.'));
      switch (node.kind) {
        case 'field':
          node = { kind: 'field', pos, ident: [...node.ident, ...fields] };
          break;
        case 'variable':
          node = { kind: 'variable', pos, ident: [...node.ident, ...fields] };
          break;
        case 'bool':
        case 'string':
        case 'number':
        case 'nil':
        case 'dot':
          this.errorf(`unexpected . after term ${quoteGo(nodeString(node))}`);
          break;
        default:
          node = { kind: 'chain', pos, node, field: fields };
      }
    }
    return node;
  }

  private term(): Node | undefined {
    const tok = this.nextNonSpace();
    switch (tok.type) {
      case ItemType.Identifier:
        if (!this.hasFunction(tok.val)) this.errorf(`function ${quoteGo(tok.val)} not defined`);
        return { kind: 'identifier', pos: tok.pos, ident: tok.val };
      case ItemType.Dot:
        return { kind: 'dot', pos: tok.pos };
      case ItemType.Nil:
        return { kind: 'nil', pos: tok.pos };
      case ItemType.Variable:
        return this.useVar(tok);
      case ItemType.Field:
        return { kind: 'field', pos: tok.pos, ident: tok.val.slice(1).split('.') };
      case ItemType.Bool:
        return { kind: 'bool', pos: tok.pos, value: tok.val === 'true' };
      case ItemType.CharConstant:
      case ItemType.Complex:
      case ItemType.Number:
        return this.newNumber(tok);
      case ItemType.LeftParen:
        return this.pipeline('parenthesized pipeline', ItemType.RightParen);
      case ItemType.String:
      case ItemType.RawString:
        return { kind: 'string', pos: tok.pos, quoted: tok.val, text: this.unquoteOrFail(tok.val) };
    }
    this.backup();
    return undefined;
  }

  private useVar(tok: Item): VariableNode {
    const ident = tok.val.split('.');
    if (!this.vars.includes(ident[0]!)) this.errorf(`undefined variable ${quoteGo(ident[0]!)}`);
    return { kind: 'variable', pos: tok.pos, ident };
  }

  // eslint-disable-next-line max-lines-per-function -- a statement-for-statement port of Go's text/template/parse.(*Tree).newNumber: kept whole so a difference the differential tests find maps onto Go's source line by line
  private newNumber(tok: Item): NumberNode {
    const text = tok.val;
    const n: NumberNode = {
      kind: 'number',
      pos: tok.pos,
      text,
      isInt: false,
      isUint: false,
      isFloat: false,
      isComplex: false,
      int: 0n,
      uint: 0n,
      float: 0,
      real: 0,
      imag: 0,
    };
    if (tok.type === ItemType.CharConstant) {
      let ch: string;
      let next: number;
      try {
        [ch, next] = unquoteChar(text, 1, "'");
      } catch {
        this.errorf('invalid syntax');
      }
      if (text.slice(next) !== "'") this.errorf(`malformed character constant: ${text}`);
      const cp = BigInt(ch.codePointAt(0)!);
      Object.assign(n, {
        int: cp,
        isInt: true,
        uint: cp,
        isUint: true,
        float: Number(cp),
        isFloat: true,
      });
      return n;
    }
    if (tok.type === ItemType.Complex) {
      const m = /^([+-]?[^+-]+)([+-].*)i$/.exec(text);
      const re = m ? parseFloat64(m[1]!) : undefined;
      const im = m ? parseFloat64(m[2]!) : undefined;
      if (re === undefined || im === undefined)
        this.errorf(`illegal number syntax: ${quoteGo(text)}`);
      n.isComplex = true;
      n.real = re;
      n.imag = im;
      this.simplifyComplex(n);
      return n;
    }
    if (text.endsWith('i')) {
      const f = parseFloat64(text.slice(0, -1));
      if (f !== undefined) {
        n.isComplex = true;
        n.imag = f;
        this.simplifyComplex(n);
        return n;
      }
    }
    const u = parseUint(text);
    if (u !== undefined) {
      n.isUint = true;
      n.uint = u;
    }
    const i = parseInt64(text);
    if (i !== undefined) {
      n.isInt = true;
      n.int = i;
      if (i === 0n) {
        n.isUint = true;
        n.uint = u ?? 0n;
      }
    }
    if (n.isInt) {
      n.isFloat = true;
      n.float = Number(n.int);
    } else if (n.isUint) {
      n.isFloat = true;
      n.float = Number(n.uint);
    } else {
      const f = parseFloat64(text);
      if (f !== undefined) {
        if (!/[.eEpP]/.test(text)) this.errorf(`integer overflow: ${quoteGo(text)}`);
        n.isFloat = true;
        n.float = f;
        if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
          n.isInt = true;
          n.int = BigInt(f);
        }
        if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) {
          n.isUint = true;
          n.uint = BigInt(f);
        }
      }
    }
    if (!n.isInt && !n.isUint && !n.isFloat) this.errorf(`illegal number syntax: ${quoteGo(text)}`);
    return n;
  }

  private simplifyComplex(n: NumberNode): void {
    if (n.imag === 0) {
      n.isFloat = true;
      n.float = n.real;
      if (Number.isInteger(n.real)) {
        n.isInt = true;
        n.int = BigInt(n.real);
      }
      if (Number.isInteger(n.real) && n.real >= 0) {
        n.isUint = true;
        n.uint = BigInt(n.real);
      }
    }
  }
}

/**
 * Parse `text` as template `name`, adding it and every {{define}}/{{block}} to `treeSet`.
 * Throws TemplateError with Go's message.
 */
export function parse(
  name: string,
  text: string,
  hasFunction: (name: string) => boolean,
  treeSet: Map<string, Tree>,
): void {
  const items = lex(text);
  const local = new Map<string, Tree>();
  new Parser(name, name, text, items, hasFunction, local).parse();
  // text/template's AddParseTree: an empty new definition does not replace an existing one.
  for (const [n, t] of local) {
    const old = treeSet.get(n);
    if (old && isEmptyTree(t.root)) continue;
    treeSet.set(n, t);
  }
}
