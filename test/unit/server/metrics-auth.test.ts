// /metrics authorization's decisions from the API server's answers: no token 401, a token the
// TokenReview rejects 401, a user the SubjectAccessReview denies 403 naming the ClusterRole,
// an allowed user through; the reviews it sends (token; user, groups and the non-resource
// attributes /metrics get); verdicts remembered per token until they expire. The route wired
// to a real API server is covered in-cluster by the e2e manifests.
import { describe, expect, it } from '@jest/globals';
import type { RequestOptions } from '../../../src/kube/index.ts';
import { KubeMetricsAuthorizer } from '../../../src/server/index.ts';

interface Answers {
  readonly authenticated: boolean;
  readonly allowed: boolean;
}

function recorder(answers: Answers) {
  const sent: RequestOptions[] = [];
  const client = {
    request: <T>(options: RequestOptions): Promise<T> => {
      sent.push(options);
      if (options.path.endsWith('/tokenreviews')) {
        return Promise.resolve({
          status: answers.authenticated
            ? {
                authenticated: true,
                user: { username: 'system:serviceaccount:mon:prom', uid: 'u', groups: ['g'] },
              }
            : { authenticated: false, error: 'token expired' },
        } as T);
      }
      return Promise.resolve({ status: { allowed: answers.allowed } } as T);
    },
  };
  return { client, sent };
}

describe('KubeMetricsAuthorizer', () => {
  it('401 without a bearer token, asking nothing', async () => {
    const { client, sent } = recorder({ authenticated: true, allowed: true });
    const auth = new KubeMetricsAuthorizer({ client });
    expect(await auth.authorize(undefined)).toMatchObject({ allowed: false, status: 401 });
    expect(await auth.authorize('Basic abc')).toMatchObject({ allowed: false, status: 401 });
    expect(sent).toEqual([]);
  });

  it('401 when the TokenReview does not authenticate', async () => {
    const { client } = recorder({ authenticated: false, allowed: true });
    const verdict = await new KubeMetricsAuthorizer({ client }).authorize('Bearer t');
    expect(verdict).toEqual({
      allowed: false,
      status: 401,
      message: 'the bearer token is not valid: token expired',
    });
  });

  it('403 naming the ClusterRole when the SubjectAccessReview denies', async () => {
    const { client, sent } = recorder({ authenticated: true, allowed: false });
    const verdict = await new KubeMetricsAuthorizer({ client }).authorize('Bearer t');
    expect(verdict).toMatchObject({ allowed: false, status: 403 });
    expect(verdict.allowed === false && verdict.message).toContain('planwright-metrics-reader');
    expect(sent.map((s) => s.body)).toEqual([
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 't' } },
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'system:serviceaccount:mon:prom',
          uid: 'u',
          groups: ['g'],
          nonResourceAttributes: { path: '/metrics', verb: 'get' },
        },
      },
    ]);
  });

  it('allows, and remembers the verdict per token until it expires', async () => {
    const { client, sent } = recorder({ authenticated: true, allowed: true });
    let now = 0;
    const auth = new KubeMetricsAuthorizer({ client, ttlMs: 1000, now: () => now });
    expect(await auth.authorize('Bearer t')).toEqual({ allowed: true });
    expect(await auth.authorize('bearer t')).toEqual({ allowed: true });
    expect(sent).toHaveLength(2);
    await auth.authorize('Bearer other');
    expect(sent).toHaveLength(4);
    now = 1001;
    await auth.authorize('Bearer t');
    expect(sent).toHaveLength(6);
  });
});
