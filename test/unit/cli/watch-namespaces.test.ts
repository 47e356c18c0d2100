// `start --watch-namespaces`: names and prefixes, what they match, the match condition the
// --install registration gets (the webhook probe always matches), and clear errors.
import { describe, expect, it } from '@jest/globals';
import {
  WEBHOOK_PROBE_NAME,
  parseWatchNamespaces,
  watchCondition,
  watchesNamespace,
} from '../../../src/cli/watch-namespaces.ts';
import { atUrl } from '../../../src/cli/install.ts';
import { warningHeaders } from '../../../src/kube/client.ts';

describe('--watch-namespaces', () => {
  it('reads names and prefixes and matches namespaces by them', () => {
    const watch = parseWatchNamespaces('team-a, kuttl-test-*,b');
    expect(watch).toEqual({ names: ['team-a', 'b'], prefixes: ['kuttl-test-'] });
    expect(watchesNamespace(watch, 'team-a')).toBe(true);
    expect(watchesNamespace(watch, 'kuttl-test-happy-cat')).toBe(true);
    expect(watchesNamespace(watch, 'team-ab')).toBe(false);
    expect(watchesNamespace(watch, 'default')).toBe(false);
  });

  it('refuses what is not a namespace name, naming it', () => {
    expect(() => parseWatchNamespaces('')).toThrow(/needs namespace names/);
    expect(() => parseWatchNamespaces('Team')).toThrow(/"Team" is not a namespace name/);
    expect(() => parseWatchNamespaces('a*b')).toThrow(/"a\*b" is not a namespace name/);
  });

  it('narrows a registration with a match condition only: rules and selectors stay as written', () => {
    const watch = parseWatchNamespaces('a,kuttl-test-*');
    expect(watchCondition(watch)).toEqual({
      name: 'planwright-watch-namespaces',
      expression: `request.name == "${WEBHOOK_PROBE_NAME}" || request.namespace in ["a"] || request.namespace.startsWith("kuttl-test-")`,
    });
    const manifest = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'planwright-validation' },
      webhooks: [
        {
          name: 'w',
          namespaceSelector: { matchExpressions: [] },
          rules: [{ apiGroups: ['kudo.dev'] }],
          clientConfig: { service: { path: '/validate/x' } },
        },
      ],
    };
    const config = atUrl(manifest, 'https://127.0.0.1:1', 'CA', { watch });
    expect(config['webhooks']).toEqual([
      {
        name: 'w',
        namespaceSelector: { matchExpressions: [] },
        rules: [{ apiGroups: ['kudo.dev'] }],
        clientConfig: {
          url: 'https://127.0.0.1:1/validate/x',
          caBundle: Buffer.from('CA').toString('base64'),
        },
        matchConditions: [watchCondition(watch)],
      },
    ]);
  });
});

describe('Warning headers', () => {
  it('reads the text of each `299 - "…"` header, unescaped', () => {
    expect(
      warningHeaders([
        'Content-Type',
        'application/json',
        'Warning',
        '299 - "OperatorVersion ns/x: error: spec.operator.name: \\"spec.operator.name\\" is required"',
        'warning',
        '299 - "second"',
      ]),
    ).toEqual([
      'OperatorVersion ns/x: error: spec.operator.name: "spec.operator.name" is required',
      'second',
    ]);
  });
});
