import { homedir } from 'node:os';
import { join } from 'node:path';

/** Root of the Planwright checkout: the installation's root (src/installation.ts). */
export { installationRoot as repositoryRoot } from '../installation.ts';

/** Cache folder outside the clone, shared by every checkout on the machine. */
export function cacheRoot(): string {
  const override = process.env['PLANWRIGHT_CACHE_DIR'];
  if (override) return override;
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.cache'), 'planwright');
}
