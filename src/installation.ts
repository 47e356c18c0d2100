/**
 * Where this installation of Planwright lives: the folder holding its package.json, beside
 * dist/ and manifests/ — a checkout, or /app in the image.
 *
 * Found by walking up from this module rather than by a path relative to it: run from the
 * sources this is src/installation.ts, but built it is part of one of the bundle's chunks
 * (scripts/build.mjs), wherever esbuild puts them. dist/ holds no package.json of its own.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function installationRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find package.json above ' + import.meta.url);
    dir = parent;
  }
}
