/**
 * What a template refers to, from its parse tree: `.Params.X` / `$.Params.X` parameters and
 * the top-level fields (`.Name`, `$.Namespace`, …), also inside if/with/range and nested
 * pipelines. Dot is followed: inside `with` and `range` bodies `.x` is not top-level (only
 * `$.x` is), unlike KUDO's walker, which reported such fields as invalid. {{define}}d
 * templates may be called with any dot, so their references only count as uses.
 */
import {
  compileTemplate,
  TemplateError,
  type ListNode,
  type Node,
  type PipeNode,
} from '../../gotemplate/index.ts';

export interface TemplateUsage {
  /** Parameters referred to where dot is the root (checked against the defined ones). */
  readonly params: ReadonlySet<string>;
  /** Parameters referred to anywhere, {{define}}s included (for "defined but not used"). */
  readonly paramsUsed: ReadonlySet<string>;
  /** Top-level fields other than Params and Pipes. */
  readonly implicits: ReadonlySet<string>;
  /** Go's parse error, when the template does not parse. */
  readonly error?: string | undefined;
}

class Walker {
  readonly params = new Set<string>();
  readonly paramsUsed = new Set<string>();
  readonly implicits = new Set<string>();

  constructor(private readonly strict: boolean) {}

  private root(ident: readonly string[]): void {
    const [head, next] = ident;
    if (head === undefined) return;
    if (head === 'Params') {
      if (next === undefined) return;
      this.paramsUsed.add(next);
      if (this.strict) this.params.add(next);
    } else if (head !== 'Pipes' && this.strict) {
      this.implicits.add(head);
    }
  }

  pipe(pipe: PipeNode | undefined, dotIsRoot: boolean): void {
    for (const cmd of pipe?.cmds ?? []) for (const arg of cmd.args) this.arg(arg, dotIsRoot);
  }

  private arg(node: Node, dotIsRoot: boolean): void {
    switch (node.kind) {
      case 'field':
        if (dotIsRoot) this.root(node.ident);
        else if (node.ident[0] === 'Params' && node.ident[1] !== undefined) {
          // `.Params.X` with another dot is most likely still the package's parameter.
          this.paramsUsed.add(node.ident[1]);
        }
        break;
      case 'variable':
        if (node.ident[0] === '$') this.root(node.ident.slice(1));
        break;
      case 'pipe':
        this.pipe(node, dotIsRoot);
        break;
      case 'chain':
        if (node.node.kind === 'pipe') this.pipe(node.node, dotIsRoot);
        break;
      default:
        break;
    }
  }

  list(list: ListNode | undefined, dotIsRoot: boolean): void {
    for (const node of list?.nodes ?? []) this.node(node, dotIsRoot);
  }

  private node(node: Node, dotIsRoot: boolean): void {
    switch (node.kind) {
      case 'action':
        this.pipe(node.pipe, dotIsRoot);
        break;
      case 'if':
        this.pipe(node.pipe, dotIsRoot);
        this.list(node.list, dotIsRoot);
        this.list(node.elseList, dotIsRoot);
        break;
      case 'with':
      case 'range':
        this.pipe(node.pipe, dotIsRoot);
        this.list(node.list, false);
        this.list(node.elseList, dotIsRoot);
        break;
      case 'template':
        this.pipe(node.pipe, dotIsRoot);
        break;
      case 'list':
        this.list(node, dotIsRoot);
        break;
      default:
        break;
    }
  }
}

/** Parses `text` as template `name` (KUDO's function map) and collects its references. */
export function templateUsage(name: string, text: string): TemplateUsage {
  let trees;
  try {
    trees = compileTemplate(name, text, { funcs: 'kudo', missingKey: 'error' }).parseTrees();
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    return { params: new Set(), paramsUsed: new Set(), implicits: new Set(), error: err.message };
  }
  const main = new Walker(true);
  const defined = new Walker(false);
  for (const [treeName, tree] of trees) {
    if (treeName === name) main.list(tree.root, true);
    else defined.list(tree.root, true);
  }
  return {
    params: main.params,
    paramsUsed: new Set([...main.paramsUsed, ...defined.paramsUsed]),
    implicits: main.implicits,
  };
}
