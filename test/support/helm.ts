/**
 * Helm (helm.sh/helm/v3 v3.22.0, `cmd/helm`), built from the Go wrapper module
 * test/controlplane/clients/ into the machine's cache once, under the same lock and progress
 * reporting as the control plane: nothing can be downloaded from release pages here. The chart
 * tests (test/unit/charts/, test/e2e/charts/) run it as users run it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureGoTool, type EnsureGoToolOptions } from '../../src/localcluster/go-tool.ts';
import { repositoryRoot } from '../../src/localcluster/paths.ts';

export const HELM_VERSION = 'v3.22.0';
const MODULE = 'helm.sh/helm/v3';

/** Path of the helm executable, building it on first use. */
export function ensureHelm(options: EnsureGoToolOptions = {}): Promise<string> {
  return ensureGoTool(
    {
      name: 'helm',
      cacheFolder: 'helm',
      version: HELM_VERSION,
      moduleDir: join(repositoryRoot(), 'test', 'controlplane', 'clients'),
      pkg: `${MODULE}/cmd/helm`,
      ldflags: `-s -w -X ${MODULE}/internal/version.version=${HELM_VERSION}`,
      purpose: `Helm ${HELM_VERSION} for the tests of charts/planwright`,
      hint: 'See test/controlplane/README.md (Helm).',
    },
    options,
  );
}

export interface HelmResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs helm to its end with a fresh, private configuration (HELM_* folders under `home`: no
 * repositories, no plugins, no user settings) and the given kubeconfig, if any.
 */
export async function runHelm(
  args: readonly string[],
  options: { readonly home: string; readonly kubeconfig?: string; readonly timeoutMs?: number },
): Promise<HelmResult> {
  const helm = await ensureHelm({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: options.home,
    HELM_CACHE_HOME: join(options.home, 'cache'),
    HELM_CONFIG_HOME: join(options.home, 'config'),
    HELM_DATA_HOME: join(options.home, 'data'),
    ...(options.kubeconfig ? { KUBECONFIG: options.kubeconfig } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(helm, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
