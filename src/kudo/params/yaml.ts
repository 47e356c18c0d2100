/**
 * Decoding an array or map parameter value (YAML text a user typed) with bounded cost:
 * - a one-pass scan bounds the nesting before the `yaml` parser (which recurses per level)
 *   sees the text, so no value can exhaust the stack;
 * - duplicate keys are found with one Set per map (the `yaml` library's own check scans
 *   the map per key: a 20,000-key value took seconds);
 * - aliases are capped ({@link MAX_YAML_ALIASES}) and an alias that refers to its own
 *   ancestor (a cycle, which `toJS` turns into a cyclic object) is refused;
 * - every map becomes a null-prototype object, so keys like `__proto__` or `constructor`
 *   are ordinary keys.
 */
import { isScalar, parseDocument, visit, type Node as YamlNode } from 'yaml';
import { MAX_YAML_ALIASES, MAX_YAML_DEPTH, excerpt } from './limits.ts';

/** Why a text is not a value: a sentence fragment following the value ("is not valid YAML: …"). */
export class YamlProblem {
  constructor(readonly reason: string) {}
}

/** Carries a {@link YamlProblem} out of the recursive copy in {@link harden}. */
class HardenStop extends Error {
  constructor(readonly problem: YamlProblem) {
    super(problem.reason);
  }
}

const SCAN_FACTOR = 4;

/** Where {@link nestingBound} is, and what it carries from one line to the next. */
interface Scan {
  readonly text: string;
  /** The offset reached. */
  i: number;
  /** Flow brackets (`[`, `{`) open. */
  flow: number;
  /** The quote of a quoted scalar open (it may span lines). */
  quote: '"' | "'" | undefined;
}

/** What one line adds: block indicators outside flow, and the deepest flow nesting on it. */
interface LineNesting {
  readonly indicators: number;
  readonly lineFlow: number;
}

/**
 * An upper bound on the nesting of collections in `text`, computed in one pass without
 * parsing: indentation levels + block indicators on a line (`- `, `? `, `: `, outside flow
 * collections) + twice the open flow brackets (a `: ` inside `[…]` makes a one-pair map, one
 * level more per bracket at most; inside flow it separates a pair and nests nothing else, so
 * `{a: 1, b: 2, …}` on one line counts 2, not one per key). Quoted scalars, comments and
 * block scalar bodies do not count. Stops counting once the bound passes `stopAt`.
 */
export function nestingBound(text: string, stopAt: number): number {
  const indents: number[] = [];
  const scan: Scan = { text, i: 0, flow: 0, quote: undefined };
  let max = 0;
  let blockScalarParent = -1; // indentation of the line that opened a `|`/`>` scalar
  const n = text.length;
  while (scan.i < n) {
    // One line per iteration.
    const indent = skipIndent(scan);
    const c = text[scan.i];
    const blank = scan.i >= n || c === '\n' || c === '\r' || c === '#';
    if (
      blockScalarParent >= 0 &&
      (blank || indent > blockScalarParent) &&
      scan.quote === undefined
    ) {
      scan.i = endOfLine(text, scan.i) + 1;
      continue;
    }
    blockScalarParent = -1;
    if (blank && scan.quote === undefined) {
      scan.i = endOfLine(text, scan.i) + 1;
      continue;
    }
    if (scan.flow === 0 && scan.quote === undefined) {
      while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
      indents.push(indent);
    }
    const { indicators, lineFlow } = scanLine(scan);
    scan.i++;
    if (
      scan.flow === 0 &&
      scan.quote === undefined &&
      /^[|>][1-9+-]{0,2}$/.test(lastToken(text, scan.i - 1))
    ) {
      blockScalarParent = indent;
    }
    max = Math.max(max, indents.length + indicators + 2 * lineFlow);
    if (max > stopAt) return max;
  }
  return max;
}

/** Moves past the spaces and tabs that start a line; their count. */
function skipIndent(scan: Scan): number {
  const { text } = scan;
  let indent = 0;
  while (scan.i < text.length && (text[scan.i] === ' ' || text[scan.i] === '\t')) {
    indent++;
    scan.i++;
  }
  return indent;
}

/** The offset of the `\n` ending the line at `i` (or the text's length). */
function endOfLine(text: string, i: number): number {
  let e = i;
  while (e < text.length && text[e] !== '\n') e++;
  return e;
}

/**
 * Reads the rest of a line (after its indentation) up to its `\n`, counting what nests:
 * quoted scalars (which may go on past the line) and comments count nothing. Works on locals
 * and stores them back at the end: this loop sees every character of every value.
 */
function scanLine(scan: Scan): LineNesting {
  const { text } = scan;
  const n = text.length;
  let { i, flow, quote } = scan;
  let indicators = 0;
  let lineFlow = flow;
  let scalarStart = true;
  for (; i < n && text[i] !== '\n'; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (quote === '"' && c === '\\') i++;
      else if (c === quote) {
        quote = undefined;
        scalarStart = false;
      }
      continue;
    }
    const next = text[i + 1];
    const spaced = next === undefined || next === ' ' || next === '\t' || next === '\n';
    if (c === ' ' || c === '\t' || c === '\r') continue;
    if (c === '#' && (i === 0 || text[i - 1] === ' ' || text[i - 1] === '\t')) {
      i = endOfLine(text, i);
      break;
    }
    if ((c === '"' || c === "'") && scalarStart) {
      quote = c;
      continue;
    }
    if ((c === '-' || c === '?' || c === ':') && spaced) {
      if (flow === 0) indicators++;
      scalarStart = true;
      continue;
    }
    if (c === '[' || c === '{') {
      flow++;
      lineFlow = Math.max(lineFlow, flow);
      scalarStart = true;
      continue;
    }
    if (c === ']' || c === '}') {
      if (flow > 0) flow--;
      continue;
    }
    if (c === ',') {
      scalarStart = true;
      continue;
    }
    scalarStart = false;
  }
  scan.i = i;
  scan.flow = flow;
  scan.quote = quote;
  return { indicators, lineFlow };
}

/** The last whitespace-separated token of the line ending before `end`. */
function lastToken(text: string, end: number): string {
  let e = end;
  while (e > 0 && /\s/.test(text[e - 1] ?? '')) e--;
  let s = e;
  while (s > 0 && !/\s/.test(text[s - 1] ?? '')) s--;
  return text.slice(s, e);
}

/**
 * The value of `text` as JSON-like data with null-prototype maps, or why it is not one
 * within the limits.
 */
export function decodeYaml(text: string): unknown {
  if (nestingBound(text, SCAN_FACTOR * MAX_YAML_DEPTH) > SCAN_FACTOR * MAX_YAML_DEPTH) {
    return new YamlProblem(`nests deeper than the limit of ${MAX_YAML_DEPTH} levels`);
  }
  let doc;
  try {
    doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  } catch (err) {
    return new YamlProblem(`is not valid YAML: ${firstLine(err)}`);
  }
  const first = doc.errors[0];
  if (first)
    return new YamlProblem(`is not valid YAML: ${firstLine(first)}${where(text, first.pos[0])}`);
  const duplicate = duplicateKey(doc.contents);
  if (duplicate) return new YamlProblem(duplicate);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    const message = firstLine(err);
    return new YamlProblem(
      /alias/i.test(message)
        ? `expands more than ${MAX_YAML_ALIASES} aliases (the limit per value)`
        : `is not valid YAML: ${message}`,
    );
  }
  return harden(value, MAX_YAML_DEPTH);
}

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** ` at line L, column C` (the `yaml` library's wording). */
function where(text: string, offset: number): string {
  const { line, column } = lineAndColumn(text, offset);
  return ` at line ${line}, column ${column}`;
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.split('\n')[0] ?? '').replace(/:\s*$/, '').slice(0, 200);
}

/** The first map key that appears twice, as a message; undefined when there is none. */
export function duplicateKey(root: YamlNode | null): string | undefined {
  let found: string | undefined;
  visit(root, {
    Map(_key, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key: unknown = pair.key;
        let id: string;
        if (key === null || key === undefined) id = 'null';
        else if (isScalar(key)) id = `${typeof key.value}:${String(key.value)}`;
        else {
          found = 'has a map key that is not a plain value (a list, map or alias as key)';
          return visit.BREAK;
        }
        if (seen.has(id)) {
          const shown = isScalar(key) ? excerpt(String(key.value)) : 'null';
          found = `is not valid YAML: map key ${shown} appears twice`;
          return visit.BREAK;
        }
        seen.add(id);
      }
      return undefined;
    },
  });
  return found;
}

/**
 * Copies `value` with null-prototype maps, refusing cycles and nesting beyond `maxDepth`
 * (as a {@link YamlProblem}). Recursion is bounded by the depth check itself; shared
 * (aliased) subtrees are copied once.
 */
export function harden(root: unknown, maxDepth: number): unknown {
  const copies = new Map<object, unknown>();
  const path = new Set<object>();
  const copy = (value: unknown, depth: number): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (path.has(value)) {
      throw new HardenStop(new YamlProblem('refers to itself through an alias (a cycle)'));
    }
    const done = copies.get(value);
    if (done !== undefined) return done;
    if (depth >= maxDepth) {
      throw new HardenStop(new YamlProblem(`nests deeper than the limit of ${maxDepth} levels`));
    }
    path.add(value);
    let out: unknown;
    if (Array.isArray(value)) {
      out = value.map((item: unknown) => copy(item, depth + 1));
    } else {
      const target = Object.create(null) as Record<string, unknown>;
      for (const [k, v] of Object.entries(value)) target[k] = copy(v, depth + 1);
      out = target;
    }
    path.delete(value);
    copies.set(value, out);
    return out;
  };
  try {
    return copy(root, 0);
  } catch (err) {
    if (err instanceof HardenStop) return err.problem;
    throw err;
  }
}
