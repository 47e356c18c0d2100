// With the webhook process gone but its registration (failurePolicy Fail) in place, Instance
// spec writes fail with a clear "failed calling webhook" error naming the webhook, while status
// writes — not covered by the registration — still succeed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { createTestNamespace, kubectl } from '../../../support/cluster.ts';
import {
  INSTANCE_WEBHOOK_NAME,
  installKudoCrds,
  startInstanceWebhook,
  type InstanceWebhook,
} from '../../../support/kudo.ts';
import { waitFor } from '../../../support/wait.ts';
import { instanceObject, operatorVersionObject } from '../../../support/kudo-objects.ts';

describe('Instance writes with the webhook process stopped', () => {
  let ns: string;
  let webhook: InstanceWebhook;

  beforeAll(async () => {
    await installKudoCrds();
    ns = await createTestNamespace('kudo-webhook-down');
    const objects = [
      operatorVersionObject('app-1', {
        operator: { name: 'app' },
        plans: { deploy: {} },
        parameters: [{ name: 'A' }],
      }),
      instanceObject('app', 'app-1'),
    ];
    const [operatorVersion, instance] = objects.map((o) => stringify(o));
    expect(
      (await kubectl(['create', '-n', ns, '-f', '-'], { input: operatorVersion })).stderr,
    ).toBe('');
    webhook = await startInstanceWebhook({ namespaces: [ns] });
    await waitFor('instance webhook schedules deploy', async () => {
      const r = await kubectl(['create', '--dry-run=server', '-o', 'json', '-n', ns, '-f', '-'], {
        input: instance,
      });
      return r.stdout.includes('"planName": "deploy"');
    });
    const created = await kubectl(['create', '-n', ns, '-f', '-'], { input: instance });
    expect(created.stderr).toBe('');
    await webhook.stop();
  });

  afterAll(async () => {
    await webhook?.unregister();
    await webhook?.stop();
  });

  /** `kubectl patch --type=merge` of the Instance. */
  const mergePatch = (patch: object, ...flags: string[]) =>
    kubectl([
      'patch',
      'instance',
      'app',
      '-n',
      ns,
      ...flags,
      '--type=merge',
      '-p',
      JSON.stringify(patch),
    ]);
  /** A field of the stored Instance, by kubectl's jsonpath. */
  const storedField = async (jsonpath: string): Promise<string> =>
    (await kubectl(['get', 'instance', 'app', '-n', ns, '-o', `jsonpath=${jsonpath}`])).stdout;

  it('spec writes fail naming the webhook that could not be called', async () => {
    const res = await mergePatch({ spec: { parameters: { A: 'x' } } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      `Error from server (InternalError): Internal error occurred: failed calling webhook "${INSTANCE_WEBHOOK_NAME}": failed to call webhook: Post "https://127.0.0.1:`,
    );
    expect(res.stderr).toContain('connect: connection refused');
    expect(await storedField('{.spec.parameters}')).toBe('');
  });

  it('status writes still succeed', async () => {
    const res = await mergePatch(
      { status: { planExecution: { planName: 'deploy', status: 'IN_PROGRESS' } } },
      '--subresource=status',
    );
    expect(res.stderr).toBe('');
    expect(await storedField('{.status.planExecution.status}')).toBe('IN_PROGRESS');
  });
});
