/**
 * `init --upgrade` over a Deployment of a version before shards. Its replicas run every
 * Instance on the one holding `planwright-leader`; the new ones run theirs by shard Leases the
 * older version does not know. A rolling update would keep both running for a while (a new pod
 * reconciles one lease duration after it starts, the older leader stops only when its own pod
 * is replaced), so two replicas would reconcile the same Instances: the older replicas are
 * stopped first (scaled to 0 and their pods gone), then the new Deployment goes in.
 */
import { ApiError, type KubeClient } from '../kube/index.ts';
import { sleepOrThrow } from '../runtime/index.ts';
import { CliError } from './errors.ts';

const NAME = 'planwright';
const POD_SELECTOR = 'app.kubernetes.io/name=planwright';

interface Deployment {
  spec?: { template?: { spec?: { containers?: Array<{ name?: string; args?: string[] }> } } };
}

/** The Deployment runs a version before shards: its container has no `--shards`. */
export function runsBeforeShards(deployment: Deployment): boolean {
  const container = deployment.spec?.template?.spec?.containers?.find((c) => c.name === NAME);
  return container !== undefined && !(container.args ?? []).includes('--shards');
}

/**
 * Stops the Deployment `planwright` of `namespace` when it runs a version before shards, and
 * waits (up to `timeoutMs`) until its pods are gone. Says what it does through `report`.
 */
export async function stopPreShardingReplicas(options: {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly timeoutMs: number;
  readonly report: (line: string) => void;
  readonly signal: AbortSignal;
}): Promise<void> {
  const { client, namespace, signal } = options;
  const path = `/apis/apps/v1/namespaces/${namespace}/deployments/${NAME}`;
  let deployment: Deployment;
  try {
    deployment = await client.request<Deployment>({ path, signal });
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return;
    throw err;
  }
  if (!runsBeforeShards(deployment)) return;
  options.report(
    `Deployment ${namespace}/${NAME} runs a Planwright before shards (one leader reconciles every Instance): ` +
      'stopping its replicas before the new ones start, so that the two never reconcile at once. ' +
      'Instance writes wait for the new pods to be Ready.',
  );
  await client.request({
    method: 'PATCH',
    path: `${path}/scale`,
    body: { spec: { replicas: 0 } },
    contentType: 'application/merge-patch+json',
    signal,
  });
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const pods = await client.request<{ items?: Array<{ metadata?: { name?: string } }> }>({
      path: `/api/v1/namespaces/${namespace}/pods`,
      query: { labelSelector: POD_SELECTOR },
      signal,
    });
    const left = (pods.items ?? []).map((p) => p.metadata?.name ?? '');
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      throw new CliError(
        `the older replicas of Deployment ${namespace}/${NAME} did not stop within ${Math.round(options.timeoutMs / 1000)} s (pods ${left.join(', ')} remain; it is scaled to 0). ` +
          'Check why they do not terminate (kubectl -n ' +
          `${namespace} describe pod ${left[0] ?? ''}), then run init --upgrade again.`,
      );
    }
    await sleepOrThrow(1_000, signal);
  }
}
