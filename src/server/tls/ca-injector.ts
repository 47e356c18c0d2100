/**
 * Keeps the CA bundle in the named Mutating/ValidatingWebhookConfigurations: every
 * `webhooks[].clientConfig.caBundle`. Patches only what differs, guarded by a JSON-patch
 * `test` of the resourceVersion (webhooks are addressed by index, which must not shift).
 *
 * Changes to the configurations (someone resets the bundle, a re-apply of the manifests) come
 * from a {@link ConfigurationChangeFeed}: here a client-node watch, later possibly the shared
 * runtime cache. The caller also re-checks periodically, in case a watch event was missed.
 *
 * @example
 * const injector = new ApiCaBundleInjector(kubeConfig, [{ kind: 'validating', name: 'planwright' }]);
 * await injector.inject(bundlePem);
 * new WatchConfigurationChangeFeed(kubeConfig, logger).subscribe(refs, () => wake(), signal);
 */
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { CaInjectionError } from '../errors.ts';
import { messageOf, statusOf } from './secret-store.ts';

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
  readonly metadata?: { readonly resourceVersion?: string };
  readonly webhooks?: ReadonlyArray<{ readonly clientConfig?: { readonly caBundle?: string } }>;
}

const MAX_ATTEMPTS = 5;

export class ApiCaBundleInjector implements CaBundleInjector {
  private readonly api: k8s.AdmissionregistrationV1Api;

  constructor(
    kubeConfig: k8s.KubeConfig,
    private readonly refs: readonly WebhookConfigurationRef[],
  ) {
    this.api = kubeConfig.makeApiClient(k8s.AdmissionregistrationV1Api);
  }

  async inject(bundlePem: string): Promise<void> {
    const caBundle = Buffer.from(bundlePem).toString('base64');
    for (const ref of this.refs) await this.injectOne(ref, caBundle);
  }

  private async injectOne(ref: WebhookConfigurationRef, caBundle: string): Promise<void> {
    const what = `${ref.kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration'} ${ref.name}`;
    for (let attempt = 1; ; attempt++) {
      let current: WebhookConfiguration;
      try {
        current =
          ref.kind === 'mutating'
            ? await this.api.readMutatingWebhookConfiguration({ name: ref.name })
            : await this.api.readValidatingWebhookConfiguration({ name: ref.name });
      } catch (err) {
        throw new CaInjectionError(
          statusOf(err) === 404
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
        if (ref.kind === 'mutating')
          await this.api.patchMutatingWebhookConfiguration({ name: ref.name, body });
        else await this.api.patchValidatingWebhookConfiguration({ name: ref.name, body });
        return;
      } catch (err) {
        const status = statusOf(err);
        // 409/422: the object moved under us (the `test` failed); read again.
        if ((status === 409 || status === 422) && attempt < MAX_ATTEMPTS) continue;
        throw new CaInjectionError(`cannot patch caBundle: ${messageOf(err)}`, what, {
          cause: err,
        });
      }
    }
  }
}

/** Watches each configuration by name with client-node's `Watch`, restarting with backoff. */
export class WatchConfigurationChangeFeed implements ConfigurationChangeFeed {
  constructor(
    private readonly kubeConfig: k8s.KubeConfig,
    private readonly logger: Logger,
  ) {}

  subscribe(
    refs: readonly WebhookConfigurationRef[],
    onChange: () => void,
    signal: AbortSignal,
  ): void {
    for (const ref of refs) void this.watchLoop(ref, onChange, signal);
  }

  private async watchLoop(
    ref: WebhookConfigurationRef,
    onChange: () => void,
    signal: AbortSignal,
  ): Promise<void> {
    const watch = new k8s.Watch(this.kubeConfig);
    const path = `/apis/admissionregistration.k8s.io/v1/${ref.kind}webhookconfigurations`;
    let failures = 0;
    while (!signal.aborted) {
      const started = Date.now();
      await new Promise<void>((resolve) => {
        let controller: AbortController | undefined;
        const onAbort = (): void => controller?.abort();
        signal.addEventListener('abort', onAbort, { once: true });
        const finish = (err?: unknown): void => {
          signal.removeEventListener('abort', onAbort);
          if (err && !signal.aborted) {
            this.logger.debug(
              { err: messageOf(err), configuration: ref.name },
              'webhook configuration watch ended',
            );
          }
          resolve();
        };
        watch
          .watch(path, { fieldSelector: `metadata.name=${ref.name}` }, () => onChange(), finish)
          .then((c) => {
            controller = c;
            if (signal.aborted) c.abort();
          })
          .catch(finish);
      });
      if (signal.aborted) return;
      // Each new watch starts with the current state (ADDED), so a missed change is caught.
      failures = Date.now() - started < 1000 ? failures + 1 : 0;
      await sleep(Math.min(30_000, 200 * 2 ** Math.min(failures, 8)), signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
