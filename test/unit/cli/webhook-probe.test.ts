// The webhook probe's reading of the API server's answers (the requests themselves run against a
// real API server in test/e2e/kudo/engine/restart.test.ts, whose managers wait for it).
import { describe, expect, it } from '@jest/globals';
import { probeWebhooks, waitForWebhooks } from '../../../src/cli/webhook-probe.ts';
import { ApiError, type KubeClient, type RequestOptions } from '../../../src/kube/index.ts';

type Answer = 'denied' | 'unreachable' | 'stored';

/** A client answering each dry-run CREATE by plural, recording what was asked. */
function client(answers: (plural: string, call: number) => Answer): {
  readonly client: KubeClient;
  readonly requests: RequestOptions[];
} {
  const requests: RequestOptions[] = [];
  const fake = {
    request: (options: RequestOptions): Promise<unknown> => {
      requests.push(options);
      const plural = options.path.slice(options.path.lastIndexOf('/') + 1);
      const answer = answers(plural, requests.length);
      if (answer === 'stored') return Promise.resolve({});
      const message =
        answer === 'denied'
          ? `admission webhook "x.planwright.dev" denied the request: no`
          : `Internal error occurred: failed calling webhook "x.planwright.dev": failed to call webhook: Post "https://127.0.0.1:1/validate": dial tcp 127.0.0.1:1: connect: connection refused`;
      const code = answer === 'denied' ? 422 : 500;
      return Promise.reject(
        new ApiError(code, 'Invalid', message, 'POST', options.path, undefined, {
          kind: 'Status',
          status: 'Failure',
          message,
          code,
        }),
      );
    },
  };
  return { client: fake as unknown as KubeClient, requests };
}

describe('probeWebhooks', () => {
  it('answers only when both configurations refuse their dry-run probe', async () => {
    const both = client(() => 'denied');
    expect(await probeWebhooks(both.client, 'team-a')).toEqual({ answered: true });
    expect(both.requests.map((r) => [r.path, r.query])).toEqual([
      ['/apis/kudo.dev/v1beta1/namespaces/team-a/instances', { dryRun: 'All' }],
      ['/apis/kudo.dev/v1beta1/namespaces/team-a/operatorversions', { dryRun: 'All' }],
    ]);
  });

  it('names the configuration the API server cannot reach yet', async () => {
    const stale = client((plural) => (plural === 'operatorversions' ? 'unreachable' : 'denied'));
    const result = await probeWebhooks(stale.client, 'default');
    expect(result.answered).toBe(false);
    expect(!result.answered && result.last).toMatch(
      /^the OperatorVersion webhook: .*failed calling webhook .*connection refused/,
    );
  });

  it('does not take an accepted probe (no webhook registered) for an answer', async () => {
    const none = client(() => 'stored');
    expect(await probeWebhooks(none.client, 'default')).toEqual({
      answered: false,
      last: 'the API server accepted the probe for the Instance webhooks without a webhook refusing it',
    });
  });
});

describe('waitForWebhooks', () => {
  it('probes again until the reloaded registration answers', async () => {
    // The first two rounds reach the previous registration's dead port.
    const reloading = client((_, call) => (call <= 2 ? 'unreachable' : 'denied'));
    const result = await waitForWebhooks(reloading.client, {
      namespace: 'default',
      timeoutMs: 10_000,
      intervalMs: 1,
    });
    expect(result).toEqual({ answered: true });
    expect(reloading.requests).toHaveLength(4);
  });

  it('gives up after its timeout with what it saw last', async () => {
    const dead = client(() => 'unreachable');
    // Long enough for more than one try even when the machine starves this process.
    const result = await waitForWebhooks(dead.client, {
      namespace: 'default',
      timeoutMs: 1_000,
      intervalMs: 5,
    });
    expect(result.answered).toBe(false);
    expect(dead.requests.length).toBeGreaterThan(1);
  });
});
