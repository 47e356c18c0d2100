/**
 * Which templates are cheap by construction, so that rendering them on the main thread can
 * never hurt the process: a static walk over the parse tree that either proves a linear
 * bound on what executing the template can cost, or says why it cannot.
 *
 * The render pool exists for templates whose cost a package controls (a `range` that
 * `append`s until the heap dies, `repeat` of a huge count, deep `template` recursion). A
 * template with no loop, no template call and only functions whose output is at most a
 * constant multiple of their input does at most a fixed amount of work per character of its
 * inputs. This walk computes that multiple — for every intermediate value, for the output
 * and for the total work — as `a·S + b` characters, where S is the size of the inputs
 * (template text, variables, parameter values; see {@link inputSize}). The caller then
 * checks the bounds against the job's actual S ({@link withinInlineLimits}) and executes
 * inline only when they are small, and parses the output inline only when it is short
 * ({@link INLINE_MAX_PARSE_CHARS}); everything else goes to a worker as before.
 *
 * Conservative on purpose: a template this walk does not understand is not bounded.
 */
import type { CommandNode, ListNode, Node, PipeNode, Template } from '../../gotemplate/index.ts';
import { nestingBound } from '../params/index.ts';
import type { ParameterInput, TemplateScalars } from './variables.ts';

/** At most `a·S + b` characters. */
export interface Bound {
  readonly a: number;
  readonly b: number;
}

export type Boundedness =
  | {
      readonly bounded: true;
      /** The largest value any expression of the template can produce. */
      readonly value: Bound;
      /** The rendered text. */
      readonly output: Bound;
      /** Characters read and written by all functions and actions together. */
      readonly work: Bound;
    }
  | { readonly bounded: false; readonly reason: string };

/** Template text larger than this is not even parsed on the main thread. */
export const INLINE_MAX_TEMPLATE_CHARS = 64 * 1024;
/** Actions and commands a bounded template may have. */
export const INLINE_MAX_ACTIONS = 256;
/** Array/map parameter values, over all parameters, rendered inline at most (raw YAML). */
export const INLINE_MAX_STRUCTURED_CHARS = 64 * 1024;
/** Nesting of array/map parameter values rendered inline. */
export const INLINE_MAX_STRUCTURED_DEPTH = 16;
/**
 * Printed size of a decoded array/map value per character of its YAML text. Decoding
 * without aliases never grows data; printing it adds punctuation and, with toYaml or
 * toPrettyJson, indentation of 2 per level, at most {@link INLINE_MAX_STRUCTURED_DEPTH}
 * levels. The worst case is a flow list of short scalars at the deepest level: `[~,~]` takes
 * 2 characters per element and prints as `- null` plus 32 spaces of indentation, under 20
 * per character.
 */
export const STRUCTURED_WEIGHT = 32;
/** Bounds at the job's input size that still execute inline (a few milliseconds at most). */
export const INLINE_MAX_VALUE_CHARS = 256 * 1024;
export const INLINE_MAX_WORK_CHARS = 1024 * 1024;
/**
 * Rendered text parsed as YAML on the main thread at most: the YAML parser's cost per byte
 * grows on adversarial shapes (many small flow items or keys), so a larger output goes to a
 * worker to be rendered and parsed there; typical objects stay well below it (figures:
 * bench/README.md, "Figures behind defaults").
 */
export const INLINE_MAX_PARSE_CHARS = 16 * 1024;

/** A multiplier that large means the template is far from cheap: stop computing. */
const MAX_FACTOR = 1e6;
/** Literal arguments (indent width, replace strings, separators) at most this long/large. */
const MAX_LITERAL = 256;
/** Printed size of a number, bool, type name or hash. */
const SCALAR = 128;

type Rule = (args: readonly Bound[], nodes: readonly (Node | undefined)[]) => Bound | string;

const sum = (xs: readonly Bound[]): Bound => ({
  a: xs.reduce((s, x) => s + x.a, 0),
  b: xs.reduce((s, x) => s + x.b, 0),
});
const max = (xs: readonly Bound[]): Bound => ({
  a: Math.max(0, ...xs.map((x) => x.a)),
  b: Math.max(0, ...xs.map((x) => x.b)),
});
const scale = (x: Bound, k: number, c = 0): Bound => ({ a: x.a * k, b: x.b * k + c });
const add = (...xs: Bound[]): Bound => sum(xs);

/** Output ≤ k × (sum of the arguments) + c per argument + c0. */
const linear =
  (k: number, perArg = 0, c0 = 0): Rule =>
  (args) =>
    scale(sum(args), k, perArg * args.length + c0);
/** Returns (a part of) one of its arguments. */
const oneOf: Rule = (args) => add(max(args), { a: 0, b: 8 });
const constant =
  (c: number): Rule =>
  () => ({ a: 0, b: c });

function literalString(node: Node | undefined): string | undefined {
  return node?.kind === 'string' ? node.text : undefined;
}
function literalInt(node: Node | undefined): number | undefined {
  return node?.kind === 'number' && node.isInt ? Number(node.int) : undefined;
}

/** `indent n s`, `nindent n s`: n spaces before each line (at most |s|+1 lines). */
const indentRule: Rule = (args, nodes) => {
  const width = literalInt(nodes[0]);
  if (width === undefined || width < 0 || width > MAX_LITERAL) {
    return `its width is not a number literal between 0 and ${MAX_LITERAL}`;
  }
  const s = args[1] ?? { a: 0, b: 0 };
  return scale(s, width + 1, width + 1);
};

/** `replace old new s`: at most |new|+1 characters per character of s (old may be empty). */
const replaceRule: Rule = (args, nodes) => {
  const from = literalString(nodes[0]);
  const to = literalString(nodes[1]);
  if (from === undefined || to === undefined || from.length > 64 || to.length > 64) {
    return 'its old and new strings are not string literals of at most 64 characters';
  }
  const s = args[2] ?? { a: 0, b: 0 };
  return scale(s, to.length + 1, to.length);
};

/** `join sep list`: the elements printed, a separator between each two. */
const joinRule: Rule = (args, nodes) => {
  const sep = literalString(nodes[0]);
  if (sep === undefined || sep.length > 64) {
    return 'its separator is not a string literal of at most 64 characters';
  }
  const list = args[1] ?? { a: 0, b: 0 };
  return scale(list, sep.length + 1, 0);
};

/**
 * `printf format args…` with a literal format whose verbs have no width, precision or
 * argument index (those multiply the output by a number the template chooses, per element of
 * a structured value, or print one argument many times). Each argument is printed once, at
 * most 16 times its printed size (`% #x` of a multi-byte character).
 */
const printfRule: Rule = (args, nodes) => {
  const format = literalString(nodes[0]);
  if (format === undefined || format.length > INLINE_MAX_TEMPLATE_CHARS) {
    return 'its format is not a string literal';
  }
  let verbs = 0;
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    i++;
    while (i < format.length && '+-# 0'.includes(format[i]!)) i++;
    const verb = format[i];
    if (verb === undefined || !/[a-zA-Z%]/.test(verb)) {
      return 'its format has a width, precision or argument index';
    }
    if (verb !== '%') verbs++;
  }
  // Without argument indexes each verb prints the next argument: every argument is printed
  // once (extra ones as %!(EXTRA type=value)), missing ones as %!v(MISSING).
  return scale(sum(args.slice(1)), 16, format.length + SCALAR * (verbs + args.length));
};

/**
 * Functions a bounded template may call: each one's output is at most a constant multiple of
 * its arguments' printed size (plus a constant) and its work linear in input plus output.
 * Everything else — loops and sequences (`until`, `seq`, `repeat`, `list`, `append`, `dict`,
 * …), regular expressions, crypto, dates, parsing (`fromJson`, `semver`), `call`, `fail`
 * included — is not: a template that uses one renders in a worker.
 */
const RULES: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  // text/template builtins
  ['and', oneOf],
  ['or', oneOf],
  ['not', constant(SCALAR)],
  ['len', constant(SCALAR)],
  ['index', oneOf],
  ['slice', oneOf],
  ['eq', constant(SCALAR)],
  ['ne', constant(SCALAR)],
  ['lt', constant(SCALAR)],
  ['le', constant(SCALAR)],
  ['gt', constant(SCALAR)],
  ['ge', constant(SCALAR)],
  ['print', linear(1, SCALAR)],
  ['println', linear(1, SCALAR, 1)],
  ['printf', printfRule],
  ['html', linear(6, SCALAR)],
  ['js', linear(6, SCALAR)],
  ['urlquery', linear(9, SCALAR)],
  // sprig: defaults and types
  ['default', oneOf],
  ['coalesce', oneOf],
  ['ternary', oneOf],
  ['empty', constant(SCALAR)],
  ['kindOf', constant(SCALAR)],
  ['kindIs', constant(SCALAR)],
  ['typeOf', constant(SCALAR)],
  ['typeIs', constant(SCALAR)],
  ['hasKey', constant(SCALAR)],
  ['toString', linear(1, SCALAR)],
  // sprig: strings (quote escapes a character into at most 6: \u00XX)
  ['quote', linear(6, SCALAR)],
  ['squote', linear(1, SCALAR)],
  ['upper', linear(3, SCALAR)],
  ['lower', linear(3, SCALAR)],
  ['title', linear(3, SCALAR)],
  ['untitle', linear(3, SCALAR)],
  ['trim', oneOf],
  ['trimAll', oneOf],
  ['trimall', oneOf],
  ['trimPrefix', oneOf],
  ['trimSuffix', oneOf],
  ['nospace', oneOf],
  ['trunc', oneOf],
  ['indent', indentRule],
  ['nindent', indentRule],
  ['replace', replaceRule],
  ['join', joinRule],
  // sprig: numbers
  ['int', constant(SCALAR)],
  ['int64', constant(SCALAR)],
  ['float64', constant(SCALAR)],
  ['atoi', constant(SCALAR)],
  ['add', constant(SCALAR)],
  ['add1', constant(SCALAR)],
  ['sub', constant(SCALAR)],
  ['mul', constant(SCALAR)],
  ['div', constant(SCALAR)],
  ['mod', constant(SCALAR)],
  ['max', constant(SCALAR)],
  ['min', constant(SCALAR)],
  // sprig: encodings and hashes (base64 of a UTF-16 unit: at most 3 bytes → 4 characters)
  ['b64enc', linear(4, SCALAR)],
  ['b64dec', oneOf],
  ['b32enc', linear(5, SCALAR)],
  ['b32dec', oneOf],
  ['sha1sum', constant(SCALAR)],
  ['sha256sum', constant(SCALAR)],
  ['adler32sum', constant(SCALAR)],
  // serialisation: escapes at most 6 characters per character; structure is in the weight
  ['toJson', linear(6, SCALAR)],
  ['toRawJson', linear(6, SCALAR)],
  ['toPrettyJson', linear(6, SCALAR)],
  ['toYaml', linear(6, SCALAR)],
]);

/** The functions a bounded template may call (for docs and tests). */
export function boundedFunctionNames(): string[] {
  return [...RULES.keys()].sort();
}

class Unbounded extends Error {}

/** The walk's state: bounds of variables and dot, totals so far. */
class Walk {
  actions = 0;
  work: Bound = { a: 0, b: 0 };
  output: Bound = { a: 0, b: 0 };
  value: Bound = { a: 0, b: 0 };
  /** Largest value ever assigned to each variable (no loops: program order is time order). */
  readonly vars = new Map<string, Bound>([['$', { a: 1, b: 0 }]]);

  count(line: number | undefined): void {
    if (++this.actions > INLINE_MAX_ACTIONS) {
      throw new Unbounded(`it has more than ${INLINE_MAX_ACTIONS} actions${at(line)}`);
    }
  }

  seen(x: Bound, line: number | undefined): Bound {
    if (x.a > MAX_FACTOR || x.b > MAX_FACTOR * INLINE_MAX_TEMPLATE_CHARS) {
      throw new Unbounded(`a value can grow too large${at(line)}`);
    }
    this.value = max([this.value, x]);
    return x;
  }

  list(list: ListNode | undefined, dot: Bound): void {
    for (const node of list?.nodes ?? []) this.node(node, dot);
  }

  node(node: Node, dot: Bound): void {
    switch (node.kind) {
      case 'text':
        this.output = add(this.output, { a: 0, b: node.text.length });
        this.work = add(this.work, { a: 0, b: node.text.length });
        return;
      case 'action': {
        this.count(node.line);
        const v = this.pipe(node.pipe, dot);
        if (node.pipe.decl.length === 0) {
          this.output = add(this.output, v);
          this.work = add(this.work, v);
        }
        return;
      }
      case 'if':
      case 'with': {
        this.count(node.line);
        const v = this.pipe(node.pipe, dot);
        this.list(node.list, node.kind === 'with' ? v : dot);
        this.list(node.elseList, dot);
        return;
      }
      case 'range':
        throw new Unbounded(`it has a range loop${at(node.line)}`);
      case 'template':
        throw new Unbounded(`it calls template ${JSON.stringify(node.name)}${at(node.line)}`);
      case 'break':
      case 'continue':
        throw new Unbounded(`it has ${node.kind}${at(node.line)}`);
      case 'list':
        this.list(node, dot);
        return;
      default:
        throw new Unbounded(`it has an unexpected ${node.kind} node`);
    }
  }

  pipe(pipe: PipeNode, dot: Bound): Bound {
    let previous: Bound | undefined;
    for (const cmd of pipe.cmds) {
      previous = this.command(cmd, dot, previous, pipe.line);
    }
    const v = previous ?? { a: 0, b: 0 };
    for (const variable of pipe.decl) {
      const name = variable.ident[0] ?? '';
      this.vars.set(name, max([this.vars.get(name) ?? { a: 0, b: 0 }, v]));
    }
    return v;
  }

  command(cmd: CommandNode, dot: Bound, piped: Bound | undefined, line: number): Bound {
    const [head, ...rest] = cmd.args;
    if (!head) return { a: 0, b: 0 };
    if (head.kind !== 'identifier') {
      // A value (field, variable, literal, parenthesised pipe): arguments of a non-function
      // are an error at execution, but are evaluated first.
      const v = this.operand(head, dot, line);
      for (const arg of rest) this.operand(arg, dot, line);
      return v;
    }
    const rule = RULES.get(head.ident);
    if (!rule) {
      throw new Unbounded(`it calls ${head.ident}, which is not a cheap function${at(line)}`);
    }
    const args = rest.map((arg) => this.operand(arg, dot, line));
    const nodes: (Node | undefined)[] = [...rest];
    if (piped) {
      args.push(piped);
      nodes.push(undefined);
    }
    const out = rule(args, nodes);
    if (typeof out === 'string') throw new Unbounded(`it calls ${head.ident}: ${out}${at(line)}`);
    this.work = add(this.work, sum(args), out);
    return this.seen(out, line);
  }

  operand(node: Node, dot: Bound, line: number): Bound {
    switch (node.kind) {
      case 'string':
        return { a: 0, b: node.text.length };
      case 'number':
        return { a: 0, b: node.text.length + SCALAR };
      case 'bool':
      case 'nil':
        return { a: 0, b: 8 };
      case 'dot':
        return dot;
      case 'field':
        return dot;
      case 'variable': {
        const v = this.vars.get(node.ident[0] ?? '');
        if (!v) throw new Unbounded(`it uses an undeclared variable${at(line)}`);
        return v;
      }
      case 'chain':
        return this.operand(node.node, dot, line);
      case 'pipe':
        return this.pipe(node, dot);
      case 'identifier':
        // A function called without arguments, as an operand: `(f)` parses as a pipe, a bare
        // identifier argument is a niladic call.
        return this.command({ kind: 'command', pos: node.pos, args: [node] }, dot, undefined, line);
      default:
        throw new Unbounded(`it has an unexpected ${node.kind} operand${at(line)}`);
    }
  }
}

function at(line: number | undefined): string {
  return line === undefined ? '' : ` (line ${line})`;
}

/**
 * Whether `template` is bounded: no {{define}}/{{block}} (the only way to a template call or
 * recursion), no range, only allow-listed functions with the literal arguments they need, at
 * most {@link INLINE_MAX_ACTIONS} actions; and if so, its bounds.
 */
export function boundedness(template: Template): Boundedness {
  const trees = template.parseTrees();
  if (trees.size !== 1) return { bounded: false, reason: 'it defines templates' };
  const tree = trees.get(template.name);
  if (!tree) return { bounded: false, reason: 'it has no main template' };
  const walk = new Walk();
  try {
    walk.list(tree.root, { a: 1, b: 0 });
  } catch (err) {
    if (err instanceof Unbounded) return { bounded: false, reason: err.message };
    throw err;
  }
  const parse = { a: 0, b: tree.text.length };
  return {
    bounded: true,
    value: walk.value,
    output: walk.output,
    work: add(walk.work, walk.output, parse),
  };
}

/** A bound at input size `s`. */
export function sizeAt(bound: Bound, s: number): number {
  return bound.a * s + bound.b;
}

/**
 * S for a job: every character a template can read. Array/map parameter values count
 * {@link STRUCTURED_WEIGHT} times (printing decoded YAML adds punctuation and indentation).
 * Undefined when the inputs themselves are not fit for the main thread: non-string values,
 * array/map values with YAML aliases (they expand when decoded), nesting deeper than
 * {@link INLINE_MAX_STRUCTURED_DEPTH} or more than {@link INLINE_MAX_STRUCTURED_CHARS} in all.
 */
export function inputSize(
  text: string,
  scalars: TemplateScalars,
  parameters: readonly ParameterInput[],
  pipes: Readonly<Record<string, string>> | undefined,
): number | undefined {
  let plain = text.length;
  for (const value of Object.values(scalars)) plain += String(value).length;
  for (const [key, value] of Object.entries(pipes ?? {})) plain += key.length + value.length;
  let structured = 0;
  for (const p of parameters) {
    plain += p.name.length;
    if (p.raw === undefined || p.raw === null) continue;
    if (typeof p.raw !== 'string') return undefined;
    if (p.type !== 'array' && p.type !== 'map') {
      plain += p.raw.length;
      continue;
    }
    structured += p.raw.length;
    if (structured > INLINE_MAX_STRUCTURED_CHARS) return undefined;
    if (p.raw.includes('*')) return undefined; // a YAML alias (or a `*` in a string: rare)
    if (nestingBound(p.raw, INLINE_MAX_STRUCTURED_DEPTH) > INLINE_MAX_STRUCTURED_DEPTH) {
      return undefined;
    }
  }
  return plain + STRUCTURED_WEIGHT * structured;
}

/** Whether a bounded template's bounds at input size `s` are small enough for the main thread. */
export function withinInlineLimits(b: Extract<Boundedness, { bounded: true }>, s: number): boolean {
  return sizeAt(b.value, s) <= INLINE_MAX_VALUE_CHARS && sizeAt(b.work, s) <= INLINE_MAX_WORK_CHARS;
}
