/**
 * KUDO 0.19's own `kubectl-kudo` (github.com/kudobuilder/kudo/cmd/kubectl-kudo), the oracle of
 * the CLI's differential test: built from the Go wrapper module test/controlplane/kudo-cli/
 * into the machine's cache once, under the same lock and progress reporting as the control
 * plane. The wrapper replaces kuttl v0.8.1 with the local copy beside it (only the packages
 * KUDO's CLI imports), whose test runner is patched for current Go; its files key the cache.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureGoTool, type EnsureGoToolOptions } from '../../src/localcluster/go-tool.ts';
import { repositoryRoot } from '../../src/localcluster/paths.ts';

export const KUDO_CLI_VERSION = 'v0.19.0';
const MODULE = 'github.com/kudobuilder/kudo';
const MODULE_DIR = join(repositoryRoot(), 'test', 'controlplane', 'kudo-cli');

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? filesBelow(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Path of KUDO's kubectl-kudo, building it on first use. */
export function ensureKudoCli(options: EnsureGoToolOptions = {}): Promise<string> {
  return ensureGoTool(
    {
      name: 'kubectl-kudo',
      cacheFolder: 'kudo-cli',
      version: KUDO_CLI_VERSION,
      moduleDir: MODULE_DIR,
      pkg: `${MODULE}/cmd/kubectl-kudo`,
      ldflags: `-s -w -X ${MODULE}/pkg/version.gitVersion=${KUDO_CLI_VERSION}`,
      purpose: `KUDO ${KUDO_CLI_VERSION}'s kubectl-kudo, the oracle of the CLI differential test`,
      hint: 'See test/controlplane/README.md (KUDO CLI) for the kuttl v0.8.1 patch it needs.',
      sources: filesBelow(join(MODULE_DIR, 'kuttl-v0.8.1')),
    },
    options,
  );
}
