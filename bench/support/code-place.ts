// Where a profiled function's code lives, from its script URL: a package under node_modules,
// a source folder of ours (dist/… or src/…), node's internals, or V8 itself. Shared by the
// CPU and heap profile summaries.
export function codePlace(url: string): string {
  if (url === '') return '(native/vm)';
  if (url.includes(BUNDLE_CHUNKS)) return 'packages in the bundle (dist/chunks, unmapped)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1] ?? url;
  if (url.startsWith('node:')) return url;
  const src = /\/(dist|src)\/(.*)\/[^/]+$/.exec(url);
  return src ? `${src[1]}/${src[2]}` : url;
}

// A frame still in a bundle chunk once SourcePlaces has restored it is a package's (or esbuild's
// runtime helpers'): the build keeps source-map mappings of our sources only (scripts/build.mjs).
const BUNDLE_CHUNKS = '/dist/chunks/';

/** Whether a frame (its place restored by SourcePlaces) is the project's own code. */
export function isOurCode(url: string): boolean {
  return (
    /\/(dist|src)\//.test(url) && !url.includes('node_modules') && !url.includes(BUNDLE_CHUNKS)
  );
}
