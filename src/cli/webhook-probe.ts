/**
 * Does the API server call Planwright's webhooks? A dry-run CREATE (nothing is stored) of an
 * object Planwright's webhook refuses: a reasoned denial means the API server reached the
 * webhook; "failed calling webhook" means the registration it holds points nowhere yet — a
 * Deployment whose pods are not serving, or a registration the API server has not reloaded
 * (it reads webhook configurations through an informer, so a new URL takes effect a moment
 * after the write, and a CREATE in between still goes to the previous, possibly dead, one).
 */
import { ApiError, type KubeClient } from '../kube/index.ts';
import { sleepOrThrow } from '../runtime/index.ts';
import { WEBHOOK_PROBE_ANNOTATION } from '../kudo/admission/index.ts';
import { apiMessage } from './kudo-api.ts';
import { WEBHOOK_PROBE_NAME } from './watch-namespaces.ts';

/** One probe: which webhook configuration it proves, and the object that is refused. */
interface Probe {
  readonly proves: string;
  readonly plural: string;
  readonly body: Record<string, unknown>;
}

/**
 * An Instance naming an OperatorVersion that does not exist passes the mutating configuration
 * (which refuses it, or schedules and lets the validating one refuse it); an OperatorVersion
 * carrying the probe annotation is refused by the validating configuration alone (it admits
 * every readable package otherwise) — the two configurations are reloaded independently.
 */
const PROBES: readonly Probe[] = [
  {
    proves: 'the Instance webhooks',
    plural: 'instances',
    body: {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'Instance',
      metadata: { name: WEBHOOK_PROBE_NAME },
      spec: { operatorVersion: { name: 'planwright-webhook-probe-does-not-exist' } },
    },
  },
  {
    proves: 'the OperatorVersion webhook',
    plural: 'operatorversions',
    body: {
      apiVersion: 'kudo.dev/v1beta1',
      kind: 'OperatorVersion',
      metadata: {
        name: WEBHOOK_PROBE_NAME,
        annotations: { [WEBHOOK_PROBE_ANNOTATION]: 'true' },
      },
      spec: {
        operator: { name: 'planwright-webhook-probe', kind: 'Operator' },
        version: '0.0.1',
      },
    },
  },
];

/** What the last probe saw when the webhooks do not answer yet. */
export type WebhookProbeResult =
  { readonly answered: true } | { readonly answered: false; readonly last: string };

/** One round: every probe must come back with a denial from the webhook. */
export async function probeWebhooks(
  client: KubeClient,
  namespace: string,
  signal?: AbortSignal,
): Promise<WebhookProbeResult> {
  for (const probe of PROBES) {
    try {
      await client.request({
        method: 'POST',
        path: `/apis/kudo.dev/v1beta1/namespaces/${namespace}/${probe.plural}`,
        query: { dryRun: 'All' },
        body: probe.body,
        signal,
      });
      return {
        answered: false,
        last: `the API server accepted the probe for ${probe.proves} without a webhook refusing it`,
      };
    } catch (err) {
      const message = apiMessage(err);
      if (err instanceof ApiError && message.includes('denied the request')) continue;
      return { answered: false, last: `${probe.proves}: ${message}` };
    }
  }
  return { answered: true };
}

/**
 * Probes every `intervalMs` until the webhooks answer (true) or `timeoutMs` passes (the last
 * thing seen). Aborting `signal` rejects.
 */
export async function waitForWebhooks(
  client: KubeClient,
  options: { readonly namespace: string; readonly timeoutMs: number; readonly intervalMs?: number },
  signal?: AbortSignal,
): Promise<WebhookProbeResult> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const result = await probeWebhooks(client, options.namespace, signal);
    if (result.answered || Date.now() >= deadline) return result;
    await sleepOrThrow(options.intervalMs ?? 250, signal);
  }
}
