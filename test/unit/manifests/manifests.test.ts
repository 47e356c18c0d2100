// manifests/: the default installation and the cert-manager variant, rendered the way
// `planwright init` renders them (src/cli/kustomize.ts; an integration test checks that
// kubectl kustomize renders the same). The two variants register the very same webhooks
// (names, paths, rules) and differ only where cert-manager takes over the certificate; every
// path either registers is one the server serves, and every path it serves is registered.
import { describe, expect, it } from '@jest/globals';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installationObjects } from '../../../src/cli/manifests.ts';
import { KustomizeError, renderKustomization } from '../../../src/cli/kustomize.ts';
import { MANIFESTS_DIR } from '../../../src/cli/install.ts';
import { ADMISSION_PATHS } from '../../../src/kudo/admission/index.ts';
import type { ApplyObject } from '../../../src/kube/apply.ts';
import { DEFAULT_HANDLER_TIMEOUT_MS } from '../../../src/server/index.ts';

type Webhook = {
  name: string;
  failurePolicy: string;
  sideEffects: string;
  rules: Array<{ resources: string[]; operations: string[] }>;
  clientConfig: { service?: { name: string; namespace: string; path: string; port: number } };
  timeoutSeconds?: number;
};

const WEBHOOK_KINDS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

function key(o: ApplyObject): string {
  return `${o.kind ?? ''}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

function webhookConfigs(objects: readonly ApplyObject[]): ApplyObject[] {
  return objects.filter((o) => WEBHOOK_KINDS.has(o.kind ?? ''));
}

function webhooks(config: ApplyObject): Webhook[] {
  return (config['webhooks'] as Webhook[] | undefined) ?? [];
}

function find(objects: readonly ApplyObject[], kind: string, name: string): ApplyObject {
  const found = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found) throw new Error(`${kind} ${name} not rendered`);
  return found;
}

describe('manifests/', () => {
  it('both variants register the same webhooks; only the cert-manager annotation differs', async () => {
    const plain = webhookConfigs(await renderKustomization(MANIFESTS_DIR));
    const certManager = webhookConfigs(
      await renderKustomization(join(MANIFESTS_DIR, 'cert-manager')),
    );
    expect(plain.map(key).sort()).toEqual([
      'MutatingWebhookConfiguration//planwright-instances',
      'ValidatingWebhookConfiguration//planwright-validation',
    ]);
    expect(certManager.map(key).sort()).toEqual(plain.map(key).sort());
    for (const config of certManager) {
      const twin = plain.find((p) => key(p) === key(config))!;
      // The base's own annotations (the installation's namespace) stay.
      expect(config.metadata?.annotations).toEqual({
        ...twin.metadata?.annotations,
        'cert-manager.io/inject-ca-from': 'planwright-system/planwright-webhook-cert',
      });
      const meta = { ...config.metadata };
      delete meta.annotations;
      const twinMeta = { ...twin.metadata };
      delete twinMeta.annotations;
      expect({ ...config, metadata: meta }).toEqual({ ...twin, metadata: twinMeta });
    }
  });

  it('every path registered by either variant is served, and every served path is registered', async () => {
    const served = new Set([
      ...ADMISSION_PATHS.mutating.map((n) => `/mutate/${n}`),
      ...ADMISSION_PATHS.validating.map((n) => `/validate/${n}`),
    ]);
    for (const dir of [MANIFESTS_DIR, join(MANIFESTS_DIR, 'cert-manager')]) {
      const registered = new Set(
        webhookConfigs(await renderKustomization(dir)).flatMap((c) =>
          webhooks(c).map((w) => w.clientConfig.service?.path ?? ''),
        ),
      );
      expect([...registered].sort()).toEqual([...served].sort());
    }
  });

  it('every webhook fails closed, has no side effects, never selects a status subresource, and calls the Service', async () => {
    const objects = await renderKustomization(MANIFESTS_DIR);
    const service = find(objects, 'Service', 'planwright-webhook');
    for (const config of webhookConfigs(objects)) {
      for (const webhook of webhooks(config)) {
        expect(webhook.failurePolicy).toBe('Fail');
        expect(webhook.sideEffects).toBe('None');
        for (const rule of webhook.rules) {
          expect(rule.resources.filter((r) => r.includes('/'))).toEqual([]);
        }
        expect(webhook.clientConfig.service).toMatchObject({
          name: service.metadata?.name,
          namespace: service.metadata?.namespace,
          port: 443,
        });
      }
    }
    const validating = find(objects, 'ValidatingWebhookConfiguration', 'planwright-validation');
    expect(
      webhooks(validating).map((w) => [w.name, w.clientConfig.service?.path, w.rules[0]]),
    ).toEqual([
      [
        'instance-validation.planwright.dev',
        '/validate/instances',
        expect.objectContaining({ resources: ['instances'], operations: ['CREATE', 'UPDATE'] }),
      ],
      [
        'operatorversion-validation.planwright.dev',
        '/validate/operatorversions',
        expect.objectContaining({
          resources: ['operatorversions'],
          operations: ['CREATE', 'UPDATE', 'DELETE'],
        }),
      ],
      [
        'operator-deletion.planwright.dev',
        '/validate/operators',
        expect.objectContaining({ resources: ['operators'], operations: ['DELETE'] }),
      ],
    ]);
  });

  it("every webhook gives the handler's deadline room: the user reads our denial, not the apiserver's timeout", async () => {
    const objects = await renderKustomization(MANIFESTS_DIR);
    const timeouts = webhookConfigs(objects).flatMap((config) =>
      webhooks(config).map((w) => ({ name: w.name, timeoutMs: (w.timeoutSeconds ?? 10) * 1000 })),
    );
    expect(timeouts.length).toBeGreaterThan(0);
    for (const { name, timeoutMs } of timeouts) {
      // The apiserver's clock includes TLS and the transfer both ways: leave it 500 ms.
      expect({ name, room: timeoutMs - DEFAULT_HANDLER_TIMEOUT_MS >= 500 }).toEqual({
        name,
        room: true,
      });
    }
  });

  it('the cert-manager variant runs files mode on the Secret its Certificate issues, for the Service names, without the self-managed TLS rights', async () => {
    const plain = await renderKustomization(MANIFESTS_DIR);
    const objects = await renderKustomization(join(MANIFESTS_DIR, 'cert-manager'));
    const certificate = find(objects, 'Certificate', 'planwright-webhook-cert');
    const spec = certificate['spec'] as { secretName: string; dnsNames: string[] };
    const service = find(objects, 'Service', 'planwright-webhook');
    const ns = service.metadata?.namespace ?? '';
    expect(spec.dnsNames).toEqual(
      expect.arrayContaining([
        `planwright-webhook.${ns}.svc`,
        `planwright-webhook.${ns}.svc.cluster.local`,
      ]),
    );
    const pod = (
      find(objects, 'Deployment', 'planwright')['spec'] as {
        template: {
          spec: {
            containers: Array<{
              name: string;
              args: string[];
              volumeMounts: Array<{ name: string; mountPath: string }>;
            }>;
            volumes: Array<{ name: string; secret?: { secretName: string } }>;
          };
        };
      }
    ).template.spec;
    const container = pod.containers.find((c) => c.name === 'planwright')!;
    const certDir = container.args[container.args.indexOf('--cert-dir') + 1];
    const mount = container.volumeMounts.find((m) => m.mountPath === certDir)!;
    expect(pod.volumes.find((v) => v.name === mount.name)?.secret?.secretName).toBe(
      spec.secretName,
    );
    // The self-managed TLS rights are the only other difference.
    const only = (a: ApplyObject[], b: ApplyObject[]): string[] =>
      a
        .map(key)
        .filter((k) => !b.some((o) => key(o) === k))
        .sort();
    expect(only(plain, objects)).toEqual([
      'ClusterRole//planwright-webhook-tls',
      'ClusterRoleBinding//planwright-webhook-tls',
      'Role/planwright-system/planwright-webhook-tls',
      'RoleBinding/planwright-system/planwright-webhook-tls',
    ]);
    expect(only(objects, plain)).toEqual([
      'Certificate/planwright-system/planwright-webhook-ca',
      'Certificate/planwright-system/planwright-webhook-cert',
      'Issuer/planwright-system/planwright-selfsigned',
      'Issuer/planwright-system/planwright-webhook-ca',
    ]);
  });

  it('init renames the namespace everywhere, the cert-manager annotation and DNS names included', async () => {
    const objects = await installationObjects({ certManager: true, namespace: 'pw' });
    const text = JSON.stringify(objects);
    expect(text).not.toContain('planwright-system');
    const validating = find(objects, 'ValidatingWebhookConfiguration', 'planwright-validation');
    expect(validating.metadata?.annotations?.['cert-manager.io/inject-ca-from']).toBe(
      'pw/planwright-webhook-cert',
    );
    expect(webhooks(validating)[0]?.clientConfig.service?.namespace).toBe('pw');
    // The registration names the installation it belongs to: the renamed namespace.
    const mutating = find(objects, 'MutatingWebhookConfiguration', 'planwright-instances');
    expect(mutating.metadata?.annotations?.['planwright.dev/installation']).toBe('pw');
  });

  it('the Deployment shares 12 shards; init --replicas and --shards change its replicas and its one --shards', async () => {
    type Deployment = {
      spec: { replicas: number; template: { spec: { containers: Array<{ args: string[] }> } } };
    };
    const plain = find(
      await installationObjects(),
      'Deployment',
      'planwright',
    ) as unknown as Deployment;
    expect(plain.spec.replicas).toBe(2);
    expect(plain.spec.template.spec.containers[0]?.args).toEqual([
      '--webhook-port',
      '9443',
      '--shards',
      '12',
    ]);
    for (const certManager of [false, true]) {
      const objects = await installationObjects({ certManager, replicas: 3, shards: 6 });
      const d = find(objects, 'Deployment', 'planwright') as unknown as Deployment;
      expect(d.spec.replicas).toBe(3);
      const args = d.spec.template.spec.containers[0]?.args ?? [];
      expect(args.filter((a) => a === '--shards')).toHaveLength(1);
      expect(args[args.indexOf('--shards') + 1]).toBe('6');
    }
  });
});

describe('renderKustomization (the subset manifests/ uses)', () => {
  async function fixture(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'kz-'));
    for (const [name, text] of Object.entries(files)) {
      await mkdir(join(dir, name, '..'), { recursive: true });
      await writeFile(join(dir, name), text);
    }
    return dir;
  }
  const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n';

  it('the Deployment spreads its replicas, drains before SIGTERM and keeps one replica through disruptions', async () => {
    const objects = await renderKustomization(MANIFESTS_DIR);
    const deployment = find(objects, 'Deployment', 'planwright') as unknown as {
      spec: {
        replicas: number;
        selector: { matchLabels: Record<string, string> };
        template: {
          spec: {
            terminationGracePeriodSeconds: number;
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: Array<{
                  podAffinityTerm: {
                    topologyKey: string;
                    labelSelector: { matchLabels: Record<string, string> };
                  };
                }>;
              };
            };
            containers: Array<{ lifecycle?: { preStop?: { sleep?: { seconds: number } } } }>;
          };
        };
      };
    };
    const labels = deployment.spec.selector.matchLabels;
    const pod = deployment.spec.template.spec;
    expect(deployment.spec.replicas).toBe(2);
    expect(
      pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution.map(
        (t) => t.podAffinityTerm,
      ),
    ).toEqual([{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labels } }]);
    const preStop = pod.containers[0]?.lifecycle?.preStop?.sleep?.seconds ?? 0;
    expect(preStop).toBeGreaterThanOrEqual(5);
    // The manager's own shutdown is bounded at 30 s (src/runtime/manager.ts).
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(preStop + 30);
    const pdb = find(objects, 'PodDisruptionBudget', 'planwright') as unknown as {
      spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } };
    };
    expect(pdb.spec).toEqual({ minAvailable: 1, selector: { matchLabels: labels } });
  });

  it('refuses a field it does not implement, by name', async () => {
    const dir = await fixture({
      'kustomization.yaml': 'resources: [cm.yaml]\nnamePrefix: x-\n',
      'cm.yaml': cm,
    });
    await expect(renderKustomization(dir)).rejects.toThrow(
      /field "namePrefix" is not supported here/,
    );
  });

  it('refuses a strategic merge patch and a patch that matches nothing', async () => {
    const smp = await fixture({
      'kustomization.yaml':
        'resources: [cm.yaml]\npatches:\n  - target: {kind: ConfigMap}\n    patch: "data: {a: b}"\n',
      'cm.yaml': cm,
    });
    await expect(renderKustomization(smp)).rejects.toThrow(KustomizeError);
    const none = await fixture({
      'kustomization.yaml':
        'resources: [cm.yaml]\npatches:\n  - target: {kind: Secret}\n    patch: "[{op: add, path: /data, value: {}}]"\n',
      'cm.yaml': cm,
    });
    await expect(renderKustomization(none)).rejects.toThrow(/matches no resource/);
  });

  it('names the failing operation of a JSON patch', async () => {
    const dir = await fixture({
      'kustomization.yaml':
        'resources: [cm.yaml]\npatches:\n  - target: {kind: ConfigMap, name: a}\n    patch: "[{op: test, path: /metadata/name, value: b}]"\n',
      'cm.yaml': cm,
    });
    await expect(renderKustomization(dir)).rejects.toThrow(
      /patch operation 1 \(test \/metadata\/name\) failed on ConfigMap\/a/,
    );
  });

  it('reads folders with a Kustomization of their own', async () => {
    const dir = await fixture({
      'kustomization.yaml': 'resources: [sub]\n',
      'sub/Kustomization': 'resources: [cm.yaml]\n',
      'sub/cm.yaml': cm,
    });
    expect((await renderKustomization(dir)).map(key)).toEqual(['ConfigMap//a']);
  });
});
