// Figures from the apiserver's own /metrics (all clients together; see audit.ts for per user).
import { execFile } from 'node:child_process';
import type { LocalClusterInfo } from '../../src/localcluster/index.ts';
import type { RequestCounts } from './audit.ts';

export function apiserverMetrics(cluster: LocalClusterInfo): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      cluster.binaries.kubectl,
      ['--kubeconfig', cluster.kubeconfigPath, 'get', '--raw', '/metrics'],
      { maxBuffer: 128 << 20 },
      (err, out) => (err ? reject(new Error(err.message)) : resolve(out)),
    ),
  );
}

/** apiserver_request_total by `VERB resource[/subresource]` (subresources folded in unless asked). */
export async function requestCounts(
  cluster: LocalClusterInfo,
  options: { readonly subresources?: boolean } = {},
): Promise<RequestCounts> {
  const counts: RequestCounts = new Map();
  for (const line of (await apiserverMetrics(cluster)).split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([a-z]*)"/.exec(line)?.[1] ?? '';
    const sub = options.subresources ? (/subresource="([a-z]*)"/.exec(line)?.[1] ?? '') : '';
    const key = `${verb} ${resource}${sub ? `/${sub}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** Watches open now (apiserver_longrunning_requests). */
export async function openWatches(cluster: LocalClusterInfo): Promise<number> {
  let n = 0;
  for (const line of (await apiserverMetrics(cluster)).split('\n')) {
    if (line.startsWith('apiserver_longrunning_requests{') && line.includes('verb="WATCH"'))
      n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}
