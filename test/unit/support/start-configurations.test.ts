// The check every Planwright-starting test runs on what `planwright start --install`
// registered: only where a webhook is served (URL, CA) and the namespace match condition may
// differ from manifests/webhook/; a different rule, failure policy or a missing webhook is drift.
import { describe, expect, it } from '@jest/globals';
import { atUrl, webhookConfigurations } from '../../../src/cli/install.ts';
import { configurationDrift } from '../../support/planwright-start.ts';

type Config = Parameters<typeof configurationDrift>[1]['mutating'];

async function asRegistered(): Promise<{
  manifests: Awaited<ReturnType<typeof webhookConfigurations>>;
  mutating: Config;
  validating: Config;
}> {
  const manifests = await webhookConfigurations();
  const at = (kind: string): Config =>
    atUrl(
      manifests.find((m) => m.kind === kind)!,
      'https://127.0.0.1:1234',
      'ca',
      {
        watch: { names: ['team-a'], prefixes: ['kuttl-test-'] },
      },
    );
  return {
    manifests,
    mutating: at('MutatingWebhookConfiguration'),
    validating: at('ValidatingWebhookConfiguration'),
  };
}

describe('configurationDrift', () => {
  it('accepts the manifests served at a URL with a namespace filter', async () => {
    const { manifests, mutating, validating } = await asRegistered();
    expect(configurationDrift(manifests as never, { mutating, validating })).toBeUndefined();
  });

  it('ignores the order in which the API server returns fields', async () => {
    const { manifests, mutating, validating } = await asRegistered();
    const reordered = structuredClone(mutating) as { webhooks: Array<Record<string, unknown>> };
    reordered.webhooks = reordered.webhooks.map((w) =>
      Object.fromEntries(Object.entries(w).reverse()),
    );
    expect(
      configurationDrift(manifests as never, { mutating: reordered, validating }),
    ).toBeUndefined();
  });

  it('names a webhook whose failure policy differs', async () => {
    const { manifests, mutating, validating } = await asRegistered();
    const changed = structuredClone(validating) as { webhooks: Array<Record<string, unknown>> };
    changed.webhooks[0]!['failurePolicy'] = 'Ignore';
    expect(configurationDrift(manifests as never, { mutating, validating: changed })).toMatch(
      /^ValidatingWebhookConfiguration planwright-validation: registered/,
    );
  });

  it('names a registration missing a webhook (only the Instance one, as tests once had it)', async () => {
    const { manifests, mutating, validating } = await asRegistered();
    const only = structuredClone(validating) as { webhooks: Array<Record<string, unknown>> };
    only.webhooks = only.webhooks.filter((w) => !String(w['name']).includes('operatorversion'));
    expect(only.webhooks.length).toBeLessThan(
      (validating as { webhooks: unknown[] }).webhooks.length,
    );
    expect(configurationDrift(manifests as never, { mutating, validating: only })).toContain(
      'ValidatingWebhookConfiguration',
    );
  });
});
