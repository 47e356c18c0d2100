// The shipped webhook registration keeps the settings the design depends on (see the
// comments in manifests/webhook/mutating-webhook.yaml); the integration tests apply it too.
import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

const MANIFEST = new URL('../../../manifests/webhook/mutating-webhook.yaml', import.meta.url);

describe('manifests/webhook/mutating-webhook.yaml', () => {
  it('registers /mutate/instances for Instance CREATE/UPDATE only, failing closed', async () => {
    const config = parse(await readFile(MANIFEST, 'utf8')) as {
      kind: string;
      webhooks: Array<Record<string, unknown>>;
    };
    expect(config.kind).toBe('MutatingWebhookConfiguration');
    expect(config.webhooks).toHaveLength(1);
    expect(config.webhooks[0]).toMatchObject({
      name: 'instance-admission.planwright.dev',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
      matchPolicy: 'Equivalent',
      reinvocationPolicy: 'Never',
      // instances/status is deliberately absent: status writes never need the webhook.
      rules: [
        {
          apiGroups: ['kudo.dev'],
          apiVersions: ['v1beta1'],
          resources: ['instances'],
          operations: ['CREATE', 'UPDATE'],
          scope: 'Namespaced',
        },
      ],
      clientConfig: { service: { path: '/mutate/instances' } },
    });
  });
});
