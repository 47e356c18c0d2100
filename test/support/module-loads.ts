// What a process loads when it starts, read off the sources: the modules reachable from its
// entry files through value imports (`import`/`export … from`, not `import type` and not
// specifiers that are all `type`), without dynamic `import()` — those load later, when their
// code runs. Packages are reported by the specifier the source names.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface Loads {
  /** Source files, relative to `root`. */
  readonly files: readonly string[];
  /** Package specifiers (`yaml`, `@kubernetes/client-node/dist/file_auth.js`) → the first file importing each. */
  readonly packages: ReadonlyMap<string, string>;
}

/** Value-import specifiers of one file (what evaluating it loads). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        clause.name === undefined &&
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      if (!onlyTypes) out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      if (statement.isTypeOnly) continue;
      const named = statement.exportClause;
      if (named && ts.isNamedExports(named) && named.elements.every((e) => e.isTypeOnly)) continue;
      out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** Everything `entries` (paths under `root`) load at start. */
export function loadedAtStart(root: string, entries: readonly string[]): Loads {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const queue = entries.map((e) => resolve(root, e));
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of valueImports(file)) {
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:') && !packages.has(spec))
        packages.set(spec, relative(root, file));
    }
  }
  return { files: [...files].map((f) => relative(root, f)), packages };
}
