// A port of text/template's executor. Go's reflect.Value distinctions are kept where a
// template can see them: `undefined` is the invalid Value (printed "<no value>"), `null`
// a nil interface sitting in a map/list slot or returned by a function. `s.node` tracks
// the node last visited exactly as Go's s.at() does, because errors quote it.

import type {
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  ListNode,
  Node,
  NumberNode,
  PipeNode,
  RangeNode,
  TemplateNode,
  VariableNode,
} from './ast.ts';
import { INTERFACE } from './values.ts';
import { nodeString } from './ast.ts';
import { TemplateError } from './errors.ts';
import { formatFloat, printString } from './fmt.ts';
import { quoteGo } from './fmt.ts';
import type { Tree } from './parser.ts';
import {
  FuncError,
  GoFunc,
  GoInt,
  GoMap,
  GoObject,
  GoSlice,
  byteLength,
  isTrue,
  typeOf,
} from './values.ts';
import type { FuncDef, GoType, GoValue, IntKind } from './values.ts';

export type V = GoValue | undefined;

const MISSING = Symbol('missing');
type Final = V | typeof MISSING;

const INT_KINDS = new Set(['int', 'int8', 'int16', 'int32', 'int64']);
/** Named integer types that functions and methods here take as parameters. */
const NAMED_INT_KINDS: ReadonlyMap<GoType, IntKind> = new Map([['time.Duration', 'int64']]);
const UINT_KINDS = new Set(['uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr']);

export interface FuncTable {
  /** User functions (sprig and friends); they shadow builtins, as in Go. */
  funcs: ReadonlyMap<string, FuncDef>;
  builtins: ReadonlyMap<string, FuncDef>;
}

export type MissingKey = 'error' | 'invalid' | 'zero';

class Break {}
class Continue {}
const BREAK = new Break();
const CONTINUE = new Continue();
const MAX_DEPTH = 100000;

/** Thrown internally so that a TemplateError is told apart from bugs; unwrapped at the top. */
class ExecFailure extends Error {
  constructor(readonly error: TemplateError) {
    super(error.message);
  }
}

interface Variable {
  name: string;
  value: V;
  /** Static type when it differs from the value's (an element of a []interface {}). */
  type?: GoType;
}

class State {
  node: Node | undefined;
  vars: Variable[];
  out = '';
  depth = 0;
  /** Static type of dot inside a range over interface elements (errors name it). */
  dotType: GoType | undefined;

  readonly table: FuncTable;
  readonly missingKey: MissingKey;
  private readonly maxOutput: number;
  private readonly maxString: number;

  constructor(
    public tmpl: Tree,
    readonly trees: ReadonlyMap<string, Tree>,
    dot: V,
    opts: ExecOptions,
  ) {
    this.table = opts.table;
    this.missingKey = opts.missingKey;
    this.maxOutput = opts.maxOutputLength ?? Infinity;
    this.maxString = opts.maxStringLength ?? this.maxOutput;
    this.vars = [{ name: '$', value: dot }];
  }

  /** Appends to the output, failing as soon as it outgrows the caller's limit. */
  write(text: string): void {
    this.out += text;
    if (this.out.length > this.maxOutput) {
      this.node = undefined;
      throw new ExecFailure(
        new TemplateError(
          `template: ${this.tmpl.name}: output exceeds the limit of ${this.maxOutput} characters`,
          'exec',
          this.tmpl.name,
        ),
      );
    }
  }

  at(n: Node): void {
    this.node = n;
  }

  errorf(msg: string): never {
    const name = this.tmpl.name;
    const n = this.node;
    if (!n) {
      throw new ExecFailure(new TemplateError(`template: ${name}: ${msg}`, 'exec', name));
    }
    const text = this.tmpl.text.slice(0, n.pos);
    const nl = text.lastIndexOf('\n');
    const col = byteLength(nl < 0 ? text : text.slice(nl + 1));
    let line = 1;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) line++;
    const location = `${this.tmpl.parseName}:${line}:${col}`;
    throw new ExecFailure(
      new TemplateError(
        `template: ${location}: executing ${quoteGo(name)} at <${nodeString(n)}>: ${msg}`,
        'exec',
        name,
        line,
        col,
      ),
    );
  }

  mark(): number {
    return this.vars.length;
  }

  pop(mark: number): void {
    this.vars.length = mark;
  }

  setVar(name: string, value: V, type?: GoType): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i]!;
      if (v.name === name) {
        v.value = value;
        v.type = type;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  setTopVar(n: number, value: V, type?: GoType): void {
    const v = this.vars[this.vars.length - n]!;
    v.value = value;
    v.type = type;
  }

  variable(name: string): Variable {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]!.name === name) return this.vars[i]!;
    }
    this.errorf(`undefined variable: ${name}`);
  }

  // ---- walking ----

  walk(dot: V, node: Node): void {
    this.at(node);
    switch (node.kind) {
      case 'action': {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      // Control-flow signals, not errors: no stack trace wanted on every loop iteration.
      case 'break':
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw BREAK;
      case 'continue':
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw CONTINUE;
      case 'if':
      case 'with': {
        const mark = this.mark();
        const val = this.evalPipeline(dot, node.pipe);
        if (isTrue(val)) {
          if (node.kind === 'with') this.walkWithDot(val, undefined, node.list);
          else this.walk(dot, node.list);
        } else if (node.elseList) this.walk(dot, node.elseList);
        this.pop(mark);
        return;
      }
      case 'list':
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case 'range':
        this.walkRange(dot, node);
        return;
      case 'template':
        this.walkTemplate(dot, node);
        return;
      case 'text':
        this.write(node.text);
        return;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  private walkWithDot(dot: V, type: GoType | undefined, node: Node): void {
    const saved = this.dotType;
    this.dotType = type;
    try {
      this.walk(dot, node);
    } finally {
      this.dotType = saved;
    }
  }

  private walkRange(dot: V, r: RangeNode): void {
    this.at(r);
    const outer = this.mark();
    try {
      const val = this.evalPipeline(dot, r.pipe);
      const mark = this.mark();
      const decl = r.pipe.decl;
      const elemType = val instanceof GoSlice || val instanceof GoMap ? val.elem : undefined;
      const et = elemType === INTERFACE ? elemType : undefined;
      const one = (index: V, elem: V): void => {
        if (decl.length > 0) {
          if (r.pipe.isAssign) {
            if (decl.length > 1) this.setVar(decl[0]!.ident[0]!, index);
            else this.setVar(decl[0]!.ident[0]!, elem, et);
          } else {
            this.setTopVar(1, elem, et);
          }
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar(decl[1]!.ident[0]!, elem, et);
          else this.setTopVar(2, index);
        }
        try {
          this.walkWithDot(elem, et, r.list);
        } catch (e) {
          if (e !== CONTINUE) throw e;
        } finally {
          this.pop(mark);
        }
      };
      let ran = false;
      if (val instanceof GoSlice) {
        const items = val.items;
        for (let i = 0; i < items.length; i++) {
          ran = true;
          one(new GoInt('int', BigInt(i)), items[i]);
        }
      } else if (val instanceof GoMap) {
        for (const k of val.sortedKeys()) {
          ran = true;
          one(k, val.entries.get(k) ?? null);
        }
      } else if (val instanceof GoInt) {
        if (decl.length > 1)
          this.errorf(`can't use ${printString(val)} to iterate over more than one variable`);
        for (let i = 0n; i < val.v; i++) {
          ran = true;
          one(undefined, new GoInt(val.kind, i));
        }
      } else if (val !== undefined && val !== null) {
        this.errorf(`range can't iterate over ${printString(val)}`);
      }
      if (!ran && r.elseList) this.walk(dot, r.elseList);
    } catch (e) {
      if (e !== BREAK) throw e;
    } finally {
      this.pop(outer);
    }
  }

  private walkTemplate(dot: V, t: TemplateNode): void {
    this.at(t);
    const tmpl = this.trees.get(t.name);
    if (!tmpl) this.errorf(`template ${quoteGo(t.name)} not defined`);
    if (this.depth >= MAX_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_DEPTH})`);
    const newDot = this.evalPipeline(dot, t.pipe);
    const saved = { tmpl: this.tmpl, vars: this.vars };
    this.depth++;
    this.tmpl = tmpl;
    this.vars = [{ name: '$', value: newDot }];
    try {
      this.walkWithDot(newDot, undefined, tmpl.root);
    } finally {
      this.depth--;
      this.tmpl = saved.tmpl;
      this.vars = saved.vars;
    }
  }

  private printValue(n: Node, v: V): void {
    this.at(n);
    if (v instanceof GoFunc) this.errorf(`can't print ${nodeString(n)} of type ${v.type}`);
    this.write(v === undefined ? '<no value>' : printString(v));
  }

  // ---- evaluation ----

  evalPipeline(dot: V, pipe: PipeNode | undefined): V {
    if (!pipe) return undefined;
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // A nil interface result digs down to the invalid value.
      if (value === null) value = undefined;
    }
    const v = value === MISSING ? undefined : value;
    for (const variable of pipe.decl) {
      if (pipe.isAssign) this.setVar(variable.ident[0]!, v);
      else this.vars.push({ name: variable.ident[0]!, value: v });
    }
    return v;
  }

  private notAFunction(args: Node[], final: Final): void {
    if (args.length > 1 || final !== MISSING) {
      this.errorf(`can't give argument to non-function ${nodeString(args[0]!)}`);
    }
  }

  private evalCommand(dot: V, cmd: CommandNode, final: Final): V {
    const first = cmd.args[0]!;
    switch (first.kind) {
      case 'field':
        return this.evalFieldNode(dot, first, cmd.args, final);
      case 'chain':
        return this.evalChainNode(dot, first, cmd.args, final);
      case 'identifier':
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'variable':
        return this.evalVariableNode(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.kind) {
      case 'bool':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        this.errorf('nil is not a command');
        break;
      case 'number':
        return this.idealConstant(first);
      case 'string':
        return first.text;
    }
    this.errorf(`can't evaluate command ${quoteGo(nodeString(first))}`);
  }

  private idealConstant(c: NumberNode): V {
    this.at(c);
    if (c.isComplex) return complexValue(c.real, c.imag);
    const isHexInt =
      c.text.length > 2 && c.text[0] === '0' && 'xX'.includes(c.text[1]!) && !/[pP]/.test(c.text);
    const isRuneInt = c.text[0] === "'";
    if (c.isFloat && !isHexInt && !isRuneInt && /[.eEpP]/.test(c.text)) return c.float;
    if (c.isInt) return new GoInt('int', c.int);
    if (c.isUint) this.errorf(`${c.text} overflows int`);
    return undefined;
  }

  private evalFieldNode(dot: V, field: FieldNode, args: Node[] | undefined, final: Final): V {
    this.at(field);
    return this.evalFieldChain(dot, dot, this.dotType, field, field.ident, args, final);
  }

  private evalChainNode(dot: V, chain: ChainNode, args: Node[] | undefined, final: Final): V {
    this.at(chain);
    if (chain.node.kind === 'nil')
      this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, INTERFACE, chain.node);
    return this.evalFieldChain(dot, pipe, undefined, chain, chain.field, args, final);
  }

  private evalVariableNode(
    dot: V,
    variable: VariableNode,
    args: Node[] | undefined,
    final: Final,
  ): V {
    this.at(variable);
    const v = this.variable(variable.ident[0]!);
    if (variable.ident.length === 1) {
      this.notAFunction(args ?? [], final);
      return v.value;
    }
    return this.evalFieldChain(
      dot,
      v.value,
      v.type,
      variable,
      variable.ident.slice(1),
      args,
      final,
    );
  }

  private evalFieldChain(
    dot: V,
    receiver: V,
    recvType: GoType | undefined,
    node: Node,
    ident: string[],
    args: Node[] | undefined,
    final: Final,
  ): V {
    const n = ident.length;
    for (let i = 0; i < n - 1; i++) {
      const container = receiver;
      receiver = this.evalField(dot, ident[i]!, node, undefined, MISSING, receiver, recvType);
      recvType = container instanceof GoMap ? container.elem : undefined;
    }
    return this.evalField(dot, ident[n - 1]!, node, args, final, receiver, recvType);
  }

  private evalFunction(
    dot: V,
    node: IdentifierNode,
    cmd: Node,
    args: Node[] | undefined,
    final: Final,
  ): V {
    this.at(node);
    const name = node.ident;
    const user = this.table.funcs.get(name);
    const def = user ?? this.table.builtins.get(name);
    if (!def) this.errorf(`${quoteGo(name)} is not a defined function`);
    return this.evalCall(dot, def, user === undefined, cmd, name, args, final);
  }

  private evalField(
    dot: V,
    fieldName: string,
    node: Node,
    args: Node[] | undefined,
    final: Final,
    receiver: V,
    recvType: GoType | undefined,
  ): V {
    if (receiver === undefined) {
      if (this.missingKey === 'error')
        this.errorf(`nil data; no entry for key ${quoteGo(fieldName)}`);
      return undefined;
    }
    const typ = recvType ?? typeOf(receiver);
    if (receiver === null) this.errorf(`nil pointer evaluating ${typ}.${fieldName}`);
    if (receiver instanceof GoObject) {
      const m = receiver.methods[fieldName];
      if (m) return this.evalCall(dot, m, false, node, fieldName, args, final);
    }
    const hasArgs = (args !== undefined && args.length > 1) || final !== MISSING;
    if (receiver instanceof GoMap) {
      if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
      const result = receiver.entries.get(fieldName);
      if (result === undefined) {
        switch (this.missingKey) {
          case 'invalid':
            return undefined;
          case 'zero':
            return zeroValue(receiver.elem);
          case 'error':
            this.errorf(`map has no entry for key ${quoteGo(fieldName)}`);
        }
      }
      return result;
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${typ}`);
  }

  private evalCall(
    dot: V,
    fun: FuncDef,
    isBuiltin: boolean,
    node: Node,
    name: string,
    args: Node[] | undefined,
    final: Final,
  ): V {
    const argNodes = args ? args.slice(1) : [];
    let numIn = argNodes.length;
    if (final !== MISSING) numIn++;
    const nParams = fun.params.length + (fun.variadic !== undefined ? 1 : 0);
    let numFixed = argNodes.length;
    if (fun.variadic !== undefined) {
      numFixed = fun.params.length;
      if (numIn < numFixed) {
        this.errorf(
          `wrong number of args for ${name}: want at least ${numFixed} got ${argNodes.length}`,
        );
      }
    } else if (numIn !== nParams) {
      this.errorf(`wrong number of args for ${name}: want ${nParams} got ${numIn}`);
    }

    if (isBuiltin && (name === 'and' || name === 'or')) {
      let v: V;
      for (const arg of argNodes) {
        v = this.evalArg(dot, 'reflect.Value', arg);
        if (isTrue(v) === (name === 'or')) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }

    const argv: V[] = new Array<V>(numIn);
    let i = 0;
    for (; i < numFixed && i < argNodes.length; i++)
      argv[i] = this.evalArg(dot, fun.params[i]!, argNodes[i]!);
    if (fun.variadic !== undefined) {
      for (; i < argNodes.length; i++) argv[i] = this.evalArg(dot, fun.variadic, argNodes[i]!);
    }
    if (final !== MISSING) {
      let t: GoType;
      if (fun.variadic !== undefined)
        t = numIn - 1 < numFixed ? fun.params[numIn - 1]! : fun.variadic;
      else t = fun.params[fun.params.length - 1]!;
      argv[i] = this.validateType(final, t);
    }
    if (isBuiltin && name === 'call') {
      const callee =
        argNodes.length === 0
          ? printString(final === MISSING ? undefined : final)
          : nodeString(argNodes[0]!);
      argv.unshift(callee);
    }
    let result: V;
    try {
      result = fun.impl(argv);
    } catch (e) {
      if (e instanceof FuncError) {
        this.at(node);
        this.errorf(`error calling ${name}: ${e.message}`);
      }
      if (e instanceof CallError) this.errorf(e.message);
      throw e;
    }
    // Checked before anything reads the string: V8 builds long strings (`repeat`, repeated
    // concatenation) as ropes that cost little until read, and flattening one allocates it
    // whole outside the heap limit (a process-level memory overrun, not a heap error).
    if (typeof result === 'string' && result.length > this.maxString) {
      this.at(node);
      this.errorf(
        `error calling ${name}: its result has ${result.length} characters, more than the limit of ${this.maxString}`,
      );
    }
    return result;
  }

  private evalArg(dot: V, typ: GoType, n: Node): V {
    this.at(n);
    switch (n.kind) {
      case 'dot':
        return this.validateType(dot, typ);
      case 'nil':
        if (canBeNil(typ)) return zeroValue(typ);
        if (typ === 'reflect.Value') return undefined;
        this.errorf(`cannot assign nil to ${typ}`);
        break;
      case 'field':
        return this.validateType(this.evalFieldNode(dot, n, [n], MISSING), typ);
      case 'variable':
        return this.validateType(this.evalVariableNode(dot, n, undefined, MISSING), typ);
      case 'pipe':
        return this.validateType(this.evalPipeline(dot, n), typ);
      case 'identifier':
        return this.validateType(this.evalFunction(dot, n, n, undefined, MISSING), typ);
      case 'chain':
        return this.validateType(this.evalChainNode(dot, n, undefined, MISSING), typ);
    }
    switch (typ) {
      case 'bool':
        if (n.kind === 'bool') return n.value;
        this.errorf(`expected bool; found ${nodeString(n)}`);
        break;
      case 'float64':
      case 'float32':
        if (n.kind === 'number' && n.isFloat) return n.float;
        this.errorf(`expected float; found ${nodeString(n)}`);
        break;
      case 'string':
        if (n.kind === 'string') return n.text;
        this.errorf(`expected string; found ${nodeString(n)}`);
        break;
      case INTERFACE:
      case 'reflect.Value':
        return this.evalEmptyInterface(dot, n);
    }
    if (INT_KINDS.has(typ)) {
      if (n.kind === 'number' && n.isInt) return new GoInt(typ as IntKind, n.int);
      this.errorf(`expected integer; found ${nodeString(n)}`);
    }
    // A constant converts to a named integer type (`$t.Add 3600000000000`); the callee
    // receives the bare integer.
    const named = NAMED_INT_KINDS.get(typ);
    if (named !== undefined) {
      if (n.kind === 'number' && n.isInt) return new GoInt(named, n.int);
      this.errorf(`expected integer; found ${nodeString(n)}`);
    }
    if (UINT_KINDS.has(typ)) {
      if (n.kind === 'number' && n.isUint) return new GoInt(typ as IntKind, n.uint);
      this.errorf(`expected unsigned integer; found ${nodeString(n)}`);
    }
    this.errorf(`can't handle ${nodeString(n)} for arg of type ${typ}`);
  }

  private evalEmptyInterface(dot: V, n: Node): V {
    this.at(n);
    switch (n.kind) {
      case 'bool':
        return n.value;
      case 'dot':
        return dot;
      case 'field':
        return this.evalFieldNode(dot, n, undefined, MISSING);
      case 'identifier':
        return this.evalFunction(dot, n, n, undefined, MISSING);
      case 'number':
        return this.idealConstant(n);
      case 'string':
        return n.text;
      case 'variable':
        return this.evalVariableNode(dot, n, undefined, MISSING);
      case 'pipe':
        return this.evalPipeline(dot, n);
    }
    this.errorf(`can't handle assignment of ${nodeString(n)} to empty interface argument`);
  }

  private validateType(value: V, typ: GoType): V {
    if (typ === 'reflect.Value') return value;
    if (value === undefined) {
      if (canBeNil(typ)) return zeroValue(typ);
      this.errorf(`invalid value; expected ${typ}`);
    }
    if (typ === INTERFACE) return value;
    if (value === null) {
      this.errorf(`wrong type for value; expected ${typ}; got interface {}`);
    }
    const vt = typeOf(value);
    if (vt !== typ) this.errorf(`wrong type for value; expected ${typ}; got ${vt}`);
    return value;
  }
}

function complexValue(re: number, im: number): GoObject {
  const str = (): string =>
    `(${formatFloat(re, 'g', -1)}${im >= 0 || Number.isNaN(im) ? '+' : ''}${formatFloat(im, 'g', -1)}i)`;
  return new GoObject('complex128', {}, str, 'complex128', { re, im });
}

/** A builtin's failure that Go reports without the "error calling" prefix. */
export class CallError extends Error {}

function canBeNil(typ: GoType): boolean {
  return (
    typ === INTERFACE ||
    typ.startsWith('[]') ||
    typ.startsWith('map[') ||
    typ.startsWith('*') ||
    typ.startsWith('func')
  );
}

function zeroValue(typ: GoType): GoValue {
  if (typ.startsWith('[]')) return new GoSlice(typ.slice(2), []);
  if (typ.startsWith('map[string]')) return new GoMap(typ.slice('map[string]'.length), new Map());
  switch (typ) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'float64':
    case 'float32':
      return 0;
  }
  if (INT_KINDS.has(typ) || UINT_KINDS.has(typ)) return new GoInt(typ as IntKind, 0n);
  return null;
}

export interface ExecOptions {
  table: FuncTable;
  missingKey: MissingKey;
  /** Fail once the output is longer than this many characters (UTF-16 code units). */
  maxOutputLength?: number;
  /** Fail once a function returns a longer string. Default: `maxOutputLength`. */
  maxStringLength?: number;
}

/** Execute template `name` from `trees` with `data` as dot; returns the output. */
export function execute(
  trees: ReadonlyMap<string, Tree>,
  name: string,
  data: V,
  opts: ExecOptions,
): string {
  const tmpl = trees.get(name);
  if (!tmpl)
    throw new TemplateError(
      `template: no template ${quoteGo(name)} associated with template`,
      'exec',
      name,
    );
  const s = new State(tmpl, trees, data, opts);
  try {
    s.walk(data, tmpl.root);
  } catch (e) {
    if (e instanceof ExecFailure) throw e.error;
    if (e instanceof RangeError && /call stack/.test(e.message)) {
      s.node = undefined;
      try {
        s.errorf(`exceeded maximum template depth (${MAX_DEPTH})`);
      } catch (f) {
        if (f instanceof ExecFailure) throw f.error;
      }
    }
    throw e;
  }
  return s.out;
}

export type { ListNode };
