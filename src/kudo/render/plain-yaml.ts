/**
 * A fast path for the YAML that templates usually render: block mappings and sequences of
 * plain words, small decimal integers and quoted strings without escapes — a ConfigMap, a
 * Service, most of a Deployment. Parsing those with the `yaml` package was most of a small
 * render's CPU and garbage; this reads them in one pass over the lines.
 *
 * It never decides anything the full parser would decide differently: every construct it
 * does not know for certain — flow collections (other than `[]`/`{}`), anchors, aliases,
 * tags, block or multi-line scalars, comments after a value, any scalar YAML 1.1 could read
 * as something else than the string or integer it looks like (yes/no/on/off/y/n/null/…,
 * octal, hex, floats, dates), tabs, non-ASCII text, duplicate keys, unexpected indentation,
 * nesting at the depth limit — makes it answer `undefined`, and the caller parses the text
 * with the full parser, which also produces the errors. test/unit/kudo/render/plain-yaml
 * checks it against the full parser over every KUDO package template and tricky inputs.
 *
 * Hand-written because no YAML library offers a "plain subset or refuse" entry point; the
 * `yaml` package's lighter entry points (`parse`, `Parser`/`Composer`) still build the same
 * tokens and nodes.
 */

/** A document root: a map with a null prototype, as `harden` makes them. */
export type PlainMap = Record<string, unknown>;

/** Only printable ASCII and newlines: no tabs, CR, BOM, Unicode line breaks. */
const ASCII_TEXT = /^[\x20-\x7e\n]*$/;
/** A plain key: a word that YAML 1.1 reads as that string. */
const PLAIN_KEY = /^[A-Za-z][A-Za-z0-9_./-]*$/;
/** A plain value: starts with a letter, no indicator that could change its meaning. */
const PLAIN_VALUE = /^[A-Za-z][A-Za-z0-9 _./:=+,@()-]*$/;
/** Words YAML 1.1 reads as booleans or null in some spelling (any case here, to be safe). */
const RESERVED = /^(?:y|n|yes|no|on|off|true|false|null)$/i;
/** Decimal integers that are exact as JavaScript numbers (no sign on 0, no leading zero). */
const INTEGER = /^(?:0|-?[1-9][0-9]{0,14})$/;
const DOUBLE_QUOTED = /^"[^"\\]*"$/;
const SINGLE_QUOTED = /^'[^']*'$/;
/** Longer implicit keys are an error for the full parser. */
const MAX_KEY_CHARS = 1000;

/** Thrown inside the parser to give up; never escapes {@link parsePlainDocuments}. */
class NotPlain extends Error {
  override readonly name = 'NotPlain';
}
/** One instance, made once: giving up must not cost a stack trace each time. */
const GIVE_UP = new NotPlain('not the plain YAML subset');

interface Line {
  readonly indent: number;
  /** The content after the indentation, trailing spaces removed. */
  readonly text: string;
}

/**
 * The non-empty documents of `text`, each a null-prototype map, when the text stays inside
 * the plain subset and no collection nests `maxDepth` levels deep; `undefined` otherwise
 * (parse it with the full parser then).
 */
export function parsePlainDocuments(text: string, maxDepth: number): PlainMap[] | undefined {
  if (!ASCII_TEXT.test(text)) return undefined;
  const out: PlainMap[] = [];
  let lines: Line[] = [];
  try {
    for (const raw of text.split('\n')) {
      let end = raw.length;
      while (end > 0 && raw.charCodeAt(end - 1) === 32) end--;
      let indent = 0;
      while (indent < end && raw.charCodeAt(indent) === 32) indent++;
      if (indent === end) continue; // blank
      if (raw.charCodeAt(indent) === 35 /* # */) continue; // a comment line
      if (indent === 0 && (raw.startsWith('---') || raw.startsWith('...'))) {
        if (end !== 3 || raw[0] !== '-') throw GIVE_UP; // `--- x`, `...`, `----`
        document(lines, maxDepth, out);
        lines = [];
        continue;
      }
      lines.push({
        indent,
        text: indent === 0 && end === raw.length ? raw : raw.slice(indent, end),
      });
    }
    document(lines, maxDepth, out);
  } catch (err) {
    if (err === GIVE_UP) return undefined;
    throw err;
  }
  return out;
}

function document(lines: Line[], maxDepth: number, out: PlainMap[]): void {
  if (lines.length === 0) return; // an empty document: skipped, as the caller does
  if (lines[0]!.indent !== 0 || isItem(lines[0]!.text)) throw GIVE_UP; // not a map at the root
  const parser = new Parser(lines, maxDepth);
  const root = parser.map(0, 0);
  if (parser.at !== lines.length) throw GIVE_UP;
  out.push(root);
}

/** `- …` or a lone `-`: a block sequence entry. */
function isItem(text: string): boolean {
  return text.charCodeAt(0) === 45 /* - */ && (text.length === 1 || text.charCodeAt(1) === 32);
}

class Parser {
  at = 0;
  constructor(
    private readonly lines: Line[],
    private readonly maxDepth: number,
  ) {}

  /** A block mapping whose keys sit at `indent`; `depth` is its own nesting level. */
  map(indent: number, depth: number): PlainMap {
    if (depth >= this.maxDepth) throw GIVE_UP;
    const out = Object.create(null) as PlainMap;
    const lines = this.lines;
    while (this.at < lines.length) {
      const line = lines[this.at]!;
      if (line.indent < indent) break;
      if (line.indent > indent || isItem(line.text)) throw GIVE_UP;
      const text = line.text;
      const colon = keyEnd(text);
      const key = keyOf(text, colon);
      if (key in out) throw GIVE_UP; // duplicate: the full parser reports it
      this.at++;
      let start = colon + 1;
      while (start < text.length && text.charCodeAt(start) === 32) start++;
      out[key] =
        start < text.length
          ? this.scalar(text.slice(start), depth)
          : this.blockValue(indent, depth, true);
    }
    return out;
  }

  /** A block sequence whose `-` sit at `indent`. */
  sequence(indent: number, depth: number): unknown[] {
    if (depth >= this.maxDepth) throw GIVE_UP;
    const out: unknown[] = [];
    const lines = this.lines;
    while (this.at < lines.length) {
      const line = lines[this.at]!;
      if (line.indent < indent) break;
      if (line.indent > indent) throw GIVE_UP;
      if (!isItem(line.text)) break; // the parent map's next key at the same indentation
      const text = line.text;
      let start = 1;
      while (start < text.length && text.charCodeAt(start) === 32) start++;
      if (start === text.length) {
        this.at++;
        out.push(this.blockValue(indent, depth, false));
        continue;
      }
      const rest = text.slice(start);
      if (isItem(rest)) throw GIVE_UP; // `- - x`
      if (looksLikeKey(rest)) {
        // `- key: value`: a map whose keys sit where `key` starts; read this line again as
        // its first entry.
        const column = indent + start;
        lines[this.at] = { indent: column, text: rest };
        out.push(this.map(column, depth + 1));
      } else {
        this.at++;
        out.push(this.scalar(rest, depth));
      }
    }
    return out;
  }

  /** A scalar (or `[]`/`{}`) inside a collection at `depth`. */
  private scalar(text: string, depth: number): unknown {
    const value = scalar(text);
    // An empty collection counts as a level for the depth limit, as for the full parser.
    if (typeof value === 'object' && value !== null && depth + 1 >= this.maxDepth) throw GIVE_UP;
    return value;
  }

  /**
   * The value of `key:` (or of a lone `-`) with nothing after it on the line: a collection
   * on the following, deeper lines — or, for a map entry, a sequence at the key's own
   * indentation — else null.
   */
  private blockValue(indent: number, depth: number, ofKey: boolean): unknown {
    const next = this.lines[this.at];
    if (next === undefined) return null;
    if (next.indent > indent) {
      return isItem(next.text)
        ? this.sequence(next.indent, depth + 1)
        : this.map(next.indent, depth + 1);
    }
    if (ofKey && next.indent === indent && isItem(next.text)) {
      return this.sequence(indent, depth + 1);
    }
    return null;
  }
}

/** Whether a sequence entry's content is `key:` or `key: value` (else a scalar). */
function looksLikeKey(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first === 34 /* " */ || first === 39 /* ' */) {
    const close = text.indexOf(text[0]!, 1);
    return close > 0 && text.charCodeAt(close + 1) === 58; /* : */
  }
  const colon = text.indexOf(':');
  return colon > 0 && (colon === text.length - 1 || text.charCodeAt(colon + 1) === 32);
}

/** Where the `:` after a map entry's key is; gives up when there is none. */
function keyEnd(text: string): number {
  const first = text.charCodeAt(0);
  const colon =
    first === 34 /* " */ || first === 39 /* ' */
      ? text.indexOf(text[0]!, 1) + 1
      : text.indexOf(':');
  if (colon <= 0 || text.charCodeAt(colon) !== 58 /* : */) throw GIVE_UP;
  if (colon + 1 < text.length && text.charCodeAt(colon + 1) !== 32) throw GIVE_UP;
  return colon;
}

/** The key before `colon`, as a string the full parser reads the same way. */
function keyOf(text: string, colon: number): string {
  if (colon > MAX_KEY_CHARS) throw GIVE_UP;
  const raw = text.slice(0, colon);
  const first = raw.charCodeAt(0);
  if (first === 34 /* " */ || first === 39 /* ' */) {
    if (!(first === 34 ? DOUBLE_QUOTED : SINGLE_QUOTED).test(raw)) throw GIVE_UP;
    const key = raw.slice(1, -1);
    if (key === '__proto__') throw GIVE_UP;
    return key;
  }
  if (!PLAIN_KEY.test(raw) || RESERVED.test(raw)) throw GIVE_UP;
  return raw;
}

/** A scalar value on one line; gives up on anything but the plain subset. */
function scalar(text: string): unknown {
  const first = text.charCodeAt(0);
  if (first === 34 /* " */) {
    if (!DOUBLE_QUOTED.test(text)) throw GIVE_UP;
    return text.slice(1, -1);
  }
  if (first === 39 /* ' */) {
    if (!SINGLE_QUOTED.test(text)) throw GIVE_UP;
    return text.slice(1, -1);
  }
  if (text === '[]') return [];
  if (text === '{}') return Object.create(null) as PlainMap;
  if (INTEGER.test(text)) return Number(text);
  if (!PLAIN_VALUE.test(text) || RESERVED.test(text) || text.includes(': ') || text.endsWith(':')) {
    throw GIVE_UP;
  }
  return text;
}
