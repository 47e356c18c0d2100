/**
 * Keeps the CA bundle in the named Mutating/ValidatingWebhookConfigurations: every
 * `webhooks[].clientConfig.caBundle`. Patches only what differs, guarded by a JSON-patch
 * `test` of the resourceVersion (webhooks are addressed by index, which must not shift).
 *
 * Changes to the configurations (someone resets the bundle, a re-apply of the manifests) come
 * from a {@link ConfigurationChangeFeed}: here a client-node watch, later possibly the shared
 * runtime cache. The caller also re-checks periodically, in case a watch event was missed.
 *
 * Both talk to the API through src/kube's KubeClient; the feed is the runtime's Watcher (list +
 * watch, relist on 410, jittered backoff), one per configuration by name.
 */
import type { Logger } from 'pino';
import { ApiError, type KubeClient } from '../../kube/index.ts';
import { Watcher } from '../../runtime/index.ts';
import { CaInjectionError } from '../errors.ts';
import { messageOf } from './secret-store.ts';

export interface WebhookConfigurationRef {
  readonly kind: 'mutating' | 'validating';
  readonly name: string;
}

export interface CaBundleInjector {
  /** Makes every webhook of every configuration carry `bundlePem`; throws CaInjectionError. */
  inject(bundlePem: string): Promise<void>;
}

export interface ConfigurationChangeFeed {
  /** Calls `onChange` whenever one of `refs` may have changed, until `signal` aborts. */
  subscribe(
    refs: readonly WebhookConfigurationRef[],
    onChange: () => void,
    signal: AbortSignal,
  ): void;
}

interface WebhookConfiguration {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
  readonly webhooks?: ReadonlyArray<{ readonly clientConfig?: { readonly caBundle?: string } }>;
}

const MAX_ATTEMPTS = 5;
const REQUEST_TIMEOUT_MS = 10_000;

function collection(ref: WebhookConfigurationRef): string {
  return `/apis/admissionregistration.k8s.io/v1/${ref.kind}webhookconfigurations`;
}

export class ApiCaBundleInjector implements CaBundleInjector {
  constructor(
    private readonly client: KubeClient,
    private readonly refs: readonly WebhookConfigurationRef[],
  ) {}

  async inject(bundlePem: string): Promise<void> {
    const caBundle = Buffer.from(bundlePem).toString('base64');
    for (const ref of this.refs) await this.injectOne(ref, caBundle);
  }

  private async injectOne(ref: WebhookConfigurationRef, caBundle: string): Promise<void> {
    const what = `${ref.kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration'} ${ref.name}`;
    for (let attempt = 1; ; attempt++) {
      const path = `${collection(ref)}/${ref.name}`;
      let current: WebhookConfiguration;
      try {
        current = await this.client.request<WebhookConfiguration>({
          path,
          timeoutMs: REQUEST_TIMEOUT_MS,
        });
      } catch (err) {
        throw new CaInjectionError(
          err instanceof ApiError && err.statusCode === 404
            ? 'does not exist; apply the webhook manifests (the CA bundle is injected into it)'
            : `cannot read: ${messageOf(err)}`,
          what,
          { cause: err },
        );
      }
      const ops: object[] = [];
      (current.webhooks ?? []).forEach((webhook, i) => {
        if (webhook.clientConfig?.caBundle === caBundle) return;
        ops.push({
          op: 'add',
          path: webhook.clientConfig
            ? `/webhooks/${i}/clientConfig/caBundle`
            : `/webhooks/${i}/clientConfig`,
          value: webhook.clientConfig ? caBundle : { caBundle },
        });
      });
      if (ops.length === 0) return;
      const body = [
        {
          op: 'test',
          path: '/metadata/resourceVersion',
          value: current.metadata?.resourceVersion ?? '',
        },
        ...ops,
      ];
      try {
        await this.client.request({
          method: 'PATCH',
          path,
          body,
          contentType: 'application/json-patch+json',
          timeoutMs: REQUEST_TIMEOUT_MS,
        });
        return;
      } catch (err) {
        const status = err instanceof ApiError ? err.statusCode : undefined;
        // 409/422: the object moved under us (the `test` failed); read again.
        if ((status === 409 || status === 422) && attempt < MAX_ATTEMPTS) continue;
        throw new CaInjectionError(`cannot patch caBundle: ${messageOf(err)}`, what, {
          cause: err,
        });
      }
    }
  }
}

/** Watches each configuration by name with the runtime's {@link Watcher}. */
export class WatchConfigurationChangeFeed implements ConfigurationChangeFeed {
  constructor(
    private readonly client: KubeClient,
    private readonly logger: Logger,
  ) {}

  subscribe(
    refs: readonly WebhookConfigurationRef[],
    onChange: () => void,
    signal: AbortSignal,
  ): void {
    for (const ref of refs) {
      // Every (re)list delivers the current state too, so a change missed meanwhile is seen.
      void new Watcher<WebhookConfiguration>({
        client: this.client,
        path: collection(ref),
        fieldSelector: `metadata.name=${ref.name}`,
        logger: this.logger.child({ configuration: ref.name }),
        onEvent: () => onChange(),
      }).run(signal);
    }
  }
}
