import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Root of the Planwright checkout: the nearest folder above this file holding package.json.
 * Works from src/ (tests, ts) and from dist/ (compiled).
 */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find package.json above ' + import.meta.url);
    dir = parent;
  }
}

/** Cache folder outside the clone, shared by every checkout on the machine. */
export function cacheRoot(): string {
  const override = process.env['PLANWRIGHT_CACHE_DIR'];
  if (override) return override;
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.cache'), 'planwright');
}
