// Parse once, execute many: the compiled form of a template with its function map.

import { execute } from './exec.ts';
import type { FuncTable, MissingKey } from './exec.ts';
import { builtins } from './funcs/builtins.ts';
import { kudoFuncs } from './funcs/kudo.ts';
import { TemplateError } from './errors.ts';
import { parse } from './parser.ts';
import type { Tree } from './parser.ts';
import { fromJS } from './values.ts';
import type { FuncDef } from './values.ts';

export interface TemplateOptions {
  /** 'kudo': sprig's TxtFuncMap minus env/expandenv/base/dir/clean/ext/isAbs, plus toYaml. */
  funcs?: 'kudo' | 'none' | ReadonlyMap<string, FuncDef>;
  /** Go's missingkey option; KUDO uses 'error'. 'default' is Go's default ('invalid'). */
  missingKey?: MissingKey | 'default';
}

export interface ExecuteOptions {
  /**
   * Fail with a TemplateError once the output is longer than this many characters (Go has
   * no such limit; callers rendering untrusted templates bound their memory with it).
   */
  maxOutputLength?: number;
  /**
   * Fail once a function returns a string longer than this (default: `maxOutputLength`).
   * Bounds what a template can make outside the engine's heap limit: see exec.ts.
   */
  maxStringLength?: number;
}

function table(funcs: TemplateOptions['funcs']): FuncTable {
  if (funcs === undefined || funcs === 'kudo') return { funcs: kudoFuncs, builtins };
  if (funcs === 'none') return { funcs: new Map(), builtins };
  return { funcs, builtins };
}

export class Template {
  private readonly trees = new Map<string, Tree>();
  private readonly table: FuncTable;
  private readonly missingKey: MissingKey;

  /** Parses `text` as template `name` (plus its {{define}}s); throws TemplateError. */
  constructor(
    readonly name: string,
    text: string,
    options: TemplateOptions = {},
  ) {
    this.table = table(options.funcs);
    const mk = options.missingKey ?? 'error';
    this.missingKey = mk === 'default' ? 'invalid' : mk;
    const t = this.table;
    try {
      parse(name, text, (fn) => t.funcs.has(fn) || t.builtins.has(fn), this.trees);
    } catch (e) {
      // Go's parser grows its stack; ours recurses on the JS stack, so nesting (10,000
      // nested {{if}}) that Go parses can exhaust it here. Deterministic: a parse error.
      if (e instanceof RangeError && /call stack/.test(e.message)) {
        throw new TemplateError(
          `template: ${name}: nested too deeply to parse (the parser ran out of stack)`,
          'parse',
          name,
        );
      }
      throw e;
    }
  }

  /** Renders with `data` as dot: plain JSON-like data (numbers are float64) or Go values. */
  execute(data: unknown, options: ExecuteOptions = {}): string {
    return execute(this.trees, this.name, fromJS(data), {
      table: this.table,
      missingKey: this.missingKey,
      ...(options.maxOutputLength !== undefined
        ? { maxOutputLength: options.maxOutputLength }
        : {}),
      ...(options.maxStringLength !== undefined
        ? { maxStringLength: options.maxStringLength }
        : {}),
    });
  }

  /**
   * The parse trees by template name (the main one under {@link name}, plus every
   * {{define}}/{{block}}), for static analysis such as `package verify`. Read-only.
   */
  parseTrees(): ReadonlyMap<string, Tree> {
    return this.trees;
  }

  /** Names of all templates defined by the source ({{define}}, {{block}} and the main one). */
  templateNames(): string[] {
    return [...this.trees.keys()];
  }
}
