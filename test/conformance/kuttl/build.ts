/**
 * kuttl (kudobuilder/kuttl v0.25.0), built from the Go wrapper module test/controlplane/clients/
 * into the machine's cache once, under the same lock and progress reporting as the control
 * plane: nothing can be downloaded from release pages here.
 */
import { join } from 'node:path';
import { ensureGoTool, type EnsureGoToolOptions } from '../../../src/localcluster/go-tool.ts';
import { repositoryRoot } from '../../../src/localcluster/paths.ts';

export const KUTTL_VERSION = 'v0.25.0';
const MODULE = 'github.com/kudobuilder/kuttl';

export type EnsureKuttlOptions = EnsureGoToolOptions;

/** Path of the kubectl-kuttl executable, building it on first use. */
export function ensureKuttl(options: EnsureKuttlOptions = {}): Promise<string> {
  return ensureGoTool(
    {
      name: 'kubectl-kuttl',
      cacheFolder: 'kuttl',
      version: KUTTL_VERSION,
      moduleDir: join(repositoryRoot(), 'test', 'controlplane', 'clients'),
      pkg: `${MODULE}/cmd/kubectl-kuttl`,
      ldflags: `-s -w -X ${MODULE}/internal/version.gitVersion=${KUTTL_VERSION}`,
      purpose: `kuttl ${KUTTL_VERSION} for KUDO's declarative test cases`,
      hint: 'See test/controlplane/README.md (kuttl) for the Go versions it is known to build with.',
    },
    options,
  );
}
