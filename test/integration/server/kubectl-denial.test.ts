// The real apiserver calls our webhook over TLS and the real kubectl shows the denial:
// `admission webhook "…" denied the request: …` on create, and on a 422 Invalid denial
// `kubectl edit` reopens the editor with the reason on top of the user's own edits.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { WebhookServer } from '../../../src/server/index.ts';
import {
  allow,
  denyForbidden,
  denyInvalid,
  StaticCertificateSource,
  type AdmissionRequest,
} from '../../../src/server/index.ts';
import { createTestNamespace, kubeConfig, kubectl, uniqueName } from '../../support/cluster.ts';
import { capturingLogger } from '../../support/https.ts';
import { waitFor } from '../../support/wait.ts';
import { scriptedEditor } from '../../support/kubectl-edit.ts';
import { loopbackWebhookServer } from '../../support/admission.ts';

function labels(object: AdmissionRequest['object']): Record<string, string> {
  const metadata = (object?.['metadata'] ?? {}) as { labels?: Record<string, string> };
  return metadata.labels ?? {};
}

function data(object: AdmissionRequest['object']): Record<string, string> {
  return ((object?.['data'] ?? {}) as Record<string, string>) ?? {};
}

describe('admission denial through the real apiserver and kubectl', () => {
  const stop = new AbortController();
  const kc = kubeConfig();
  const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  const configName = uniqueName('pw-deny');
  const webhookName = `${configName}.planwright.dev`;
  let namespace: string;
  let server: WebhookServer;

  beforeAll(async () => {
    namespace = await createTestNamespace('webhook-deny');
    const loopback = StaticCertificateSource.forLoopback('webhook-test');
    server = loopbackWebhookServer(loopback.source, capturingLogger().logger);
    server.registerValidating('configmaps', (request) => {
      if (labels(request.object)['planwright.dev/deny'] === 'true') {
        return denyForbidden(
          `configmap ${request.name} carries planwright.dev/deny=true; remove the label`,
        );
      }
      if (
        request.operation === 'UPDATE' &&
        data(request.object)['frozen'] !== data(request.oldObject)['frozen']
      ) {
        return denyInvalid('data.frozen cannot change', [
          {
            field: 'data.frozen',
            message: 'frozen while plan "deploy" runs; wait for it to finish',
          },
        ]);
      }
      return allow();
    });
    const { port } = await server.listen(stop.signal);
    await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: configName },
        webhooks: [
          {
            name: webhookName,
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            timeoutSeconds: 5,
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
            rules: [
              {
                apiGroups: [''],
                apiVersions: ['v1'],
                resources: ['configmaps'],
                operations: ['CREATE', 'UPDATE'],
              },
            ],
            clientConfig: {
              url: `https://127.0.0.1:${port}/validate/configmaps`,
              caBundle: Buffer.from(loopback.caPem).toString('base64'),
            },
          },
        ],
      },
    });
  });

  afterAll(async () => {
    await admission
      .deleteValidatingWebhookConfiguration({ name: configName })
      .catch(() => undefined);
    stop.abort();
    await server.stop();
  });

  const denied = (name: string): string =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\n  labels:\n    planwright.dev/deny: "true"\n`;

  it('kubectl create prints the denial and exits 1', async () => {
    // The apiserver picks up a new webhook configuration asynchronously.
    await waitFor('webhook active', async () => {
      const r = await kubectl(['create', '--dry-run=server', '-f', '-'], {
        input: denied('probe'),
      });
      return r.code !== 0 && r.stderr.includes('denied the request');
    });
    const res = await kubectl(['create', '-f', '-'], { input: denied('cm-denied') });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      `Error from server (Forbidden): error when creating "STDIN": admission webhook "${webhookName}" denied the request: configmap cm-denied carries planwright.dev/deny=true; remove the label`,
    );
    const allowed = await kubectl([
      'create',
      'configmap',
      'cm-allowed',
      '-n',
      namespace,
      '--from-literal=a=b',
    ]);
    expect(allowed.code).toBe(0);
  });

  it('kubectl edit reopens the editor with the reason header and the user edits', async () => {
    const name = 'cm-frozen';
    const created = await kubectl([
      'create',
      'configmap',
      name,
      '-n',
      namespace,
      '--from-literal=frozen=before',
      '--from-literal=other=1',
    ]);
    expect(created.code).toBe(0);
    // The user's edit changes two fields.
    const editor = await scriptedEditor(
      'sed -i -e "s/frozen: before/frozen: after/" -e "s/other: \\"1\\"/other: \\"2\\"/" "$1"',
    );
    const res = await kubectl(['edit', `configmap/${name}`, '-n', namespace], { env: editor.env });
    expect(await editor.calls()).toBe(2);
    const reopened = await editor.reopened();
    expect(reopened).toContain(`# configmaps "${name}" was not valid:`);
    expect(reopened).toContain(
      '# * data.frozen: frozen while plan "deploy" runs; wait for it to finish',
    );
    expect(reopened).toMatch(/^\s+frozen: after$/m);
    expect(reopened).toMatch(/^\s+other: "2"$/m);
    expect(res.stderr).toContain(`error: configmaps "${name}" is invalid`);
    // Nothing was stored.
    const stored = await kubectl([
      'get',
      'configmap',
      name,
      '-n',
      namespace,
      '-o',
      'jsonpath={.data.frozen}',
    ]);
    expect(stored.stdout).toBe('before');
  });
});
