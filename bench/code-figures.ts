// Figures of how easy src/ is to change (issue 42), printed so a before and an after can be
// compared: `node --import ./scripts/register-ts.mjs bench/code-figures.ts [--list]`.
// Read off the syntax tree (typescript's parser, no type-checking), so comments and strings
// never count.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { importGraph } from '../test/support/architecture.ts';

const SRC = new URL('../src/', import.meta.url).pathname;
const list = process.argv.includes('--list');

/** The files on the path from `planwright start`'s flags to a running App. */
const START_PATH = ['cli/commands/start.ts', 'cli/start.ts', 'app.ts'];
/** The flags' table those files read: declarative data (spelling, help, parser, default). */
const START_FLAG_TABLE = 'cli/start-flags.ts';
/** Files that hold generated tables (their long "functions" are data). */
const GENERATED = /^(gotemplate\/re2\/.*tables|kube\/removed-apis\/)/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const spreads: string[] = [];
const longFunctions: string[] = [];
/** Long functions eslint is told to allow, each with its reason (`-- why` on the comment). */
const exceptions: string[] = [];
const ALLOWED = /eslint-disable-next-line max-lines-per-function -- (.+)$/;
const ssaCallers = new Set<string>();

for (const abs of files(SRC)) {
  const rel = relative(SRC, abs);
  const text = readFileSync(abs, 'utf8');
  const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.ES2022, true);
  const line = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    // `...(x ? { … } : {})` and `...(x && { … })`
    if (ts.isSpreadAssignment(node)) {
      let e = node.expression;
      while (ts.isParenthesizedExpression(e)) e = e.expression;
      if (
        (ts.isConditionalExpression(e) &&
          [e.whenTrue, e.whenFalse].some(
            (b) => ts.isObjectLiteralExpression(b) && b.properties.length === 0,
          )) ||
        (ts.isBinaryExpression(e) &&
          e.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken &&
          ts.isObjectLiteralExpression(e.right))
      )
        spreads.push(`${rel}:${line(node.getStart())}`);
    }
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = line(node.getEnd()) - line(node.getStart()) + 1;
      if (lines > 80 && !GENERATED.test(rel)) {
        const name = node.name?.getText() ?? '(anonymous)';
        const at = `${rel}:${line(node.getStart())} ${name} ${lines} lines`;
        const before = text.split('\n')[line(node.getStart()) - 2] ?? '';
        const allowed = ALLOWED.exec(before);
        if (allowed) exceptions.push(`${at}: ${allowed[1]}`);
        else longFunctions.push(at);
      }
    }
    // A server-side apply, read or removal made on a ServerSideApply rather than through the
    // ResourceManager: `<x>.ssa.apply|get|remove(` or `ssa.apply|get|remove(`.
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['apply', 'get', 'remove'].includes(node.expression.name.text)
    ) {
      const target = node.expression.expression;
      const name = ts.isPropertyAccessExpression(target)
        ? target.name.text
        : ts.isIdentifier(target)
          ? target.text
          : '';
      if (/^(ssa|home)$/.test(name) && !rel.startsWith('kube/')) ssaCallers.add(rel);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

const graph = importGraph(SRC);
const sub = (p: string): string | undefined =>
  p.startsWith('kudo/') && p.split('/').length > 2 ? p.split('/')[1] : undefined;
const crossKudo = graph.filter((e) => {
  const a = sub(e.from);
  const b = sub(e.to);
  return a !== undefined && b !== undefined && a !== b;
});
const deepKudo = crossKudo.filter((e) => e.to !== `kudo/${sub(e.to)}/index.ts`);

/** Folder of a file: kudo's sub-folders, otherwise the top-level folder (or the file itself). */
const folder = (p: string): string => {
  const parts = p.split('/');
  if (parts[0] === 'kudo' && parts.length > 2) return `kudo/${parts[1]}`;
  return parts.length > 1 ? parts[0]! : p;
};
const next = new Map<string, Set<string>>();
for (const e of graph) {
  const [a, b] = [folder(e.from), folder(e.to)];
  if (a !== b) next.set(a, (next.get(a) ?? new Set()).add(b));
}
const reaches = (from: string, to: string): boolean => {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const v = stack.pop()!;
    for (const w of next.get(v) ?? []) {
      if (w === to) return true;
      if (seen.has(w)) continue;
      seen.add(w);
      stack.push(w);
    }
  }
  return false;
};
const folderPairs: string[] = [];
for (const [a, bs] of next)
  for (const b of bs) if (a < b && reaches(b, a)) folderPairs.push(`${a} <-> ${b}`);

const startLines = START_PATH.map((p) => {
  try {
    return [p, readFileSync(join(SRC, p), 'utf8').split('\n').length - 1] as const;
  } catch {
    return [p, 0] as const;
  }
}).filter(([, n]) => n > 0);

const show = (title: string, n: number, items: readonly string[]): void => {
  console.log(`${title}: ${n}`);
  if (list) for (const i of items) console.log(`  ${i}`);
};
show('conditional spreads in src', spreads.length, spreads);
show(
  'functions over 80 lines in src (generated tables excluded)',
  longFunctions.length,
  longFunctions,
);
show('  listed exceptions (eslint-disable with a reason)', exceptions.length, exceptions);
show(
  'files calling ServerSideApply.apply/get/remove outside src/kube',
  ssaCallers.size,
  [...ssaCallers].sort(),
);
show(
  'start-path files / lines',
  startLines.length,
  startLines.map(([p, n]) => `${p} ${n}`),
);
const startTotal = startLines.reduce((s, [, n]) => s + n, 0);
console.log(`start-path lines: ${startTotal}`);
const tableLines = readFileSync(join(SRC, START_FLAG_TABLE), 'utf8').split('\n').length - 1;
console.log(
  `start-path flag table (declarative, not in the lines above): ${START_FLAG_TABLE} ${tableLines}; ` +
    `with it ${startTotal + tableLines}`,
);
show('imports across src/kudo sub-folders', crossKudo.length, []);
show(
  'of which deep (not to the sub-folder index.ts)',
  deepKudo.length,
  deepKudo.map((e) => `${e.from} -> ${e.to}`),
);
show(
  'folder pairs in a cycle (kudo sub-folders count as folders)',
  folderPairs.length,
  folderPairs,
);
