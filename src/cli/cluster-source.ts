import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { serviceAccountDir } from '../kube/index.ts';

/** Where the cluster connection comes from, decided before anything is loaded. */
export type ClusterSource =
  | { readonly kind: 'kubeconfig'; readonly path: string; readonly origin: string }
  | { readonly kind: 'in-cluster' }
  | { readonly kind: 'local' };

/**
 * The usual precedence of Kubernetes clients: an explicit --kubeconfig, then $KUBECONFIG,
 * then ~/.kube/config, then the in-cluster service account; with none of them, the embedded
 * local control plane. A kubeconfig that is configured but missing is an error, not a reason
 * to fall back silently to another cluster.
 */
export function chooseClusterSource(
  options: { kubeconfig?: string; local: boolean },
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): ClusterSource {
  if (options.local) return { kind: 'local' };
  if (options.kubeconfig) {
    return { kind: 'kubeconfig', path: options.kubeconfig, origin: '--kubeconfig' };
  }
  const fromEnv = env['KUBECONFIG']?.split(':').find((p) => p.length > 0);
  if (fromEnv) return { kind: 'kubeconfig', path: fromEnv, origin: 'KUBECONFIG' };
  const defaultPath = join(home, '.kube', 'config');
  if (existsSync(defaultPath))
    return { kind: 'kubeconfig', path: defaultPath, origin: '~/.kube/config' };
  if (env['KUBERNETES_SERVICE_HOST'] && existsSync(join(serviceAccountDir(env), 'token')))
    return { kind: 'in-cluster' };
  return { kind: 'local' };
}
