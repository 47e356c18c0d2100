// Where a profiled function's code lives, from its script URL: a package under node_modules,
// a source folder of ours (dist/… or src/…), node's internals, or V8 itself. Shared by the
// CPU and heap profile summaries.
export function codePlace(url: string): string {
  if (url === '') return '(native/vm)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1] ?? url;
  if (url.startsWith('node:')) return url;
  const src = /\/(dist|src)\/(.*)\/[^/]+$/.exec(url);
  return src ? `${src[1]}/${src[2]}` : url;
}
