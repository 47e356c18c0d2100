/**
 * Authentication and authorization of `/metrics`, the way controller-runtime's metrics filter
 * (WithAuthenticationAndAuthorization) does it: the caller's bearer token goes to a
 * TokenReview, the user it names to a SubjectAccessReview of `get` on the non-resource URL
 * `/metrics`; 401 without a valid token, 403 without the grant. Verdicts are remembered per
 * token for a short while (bounded), so a scrape every few seconds costs no API round trip.
 */
import { createHash } from 'node:crypto';
import type { KubeClient } from '../kube/index.ts';
import { BoundedMap } from '../runtime/index.ts';

export type MetricsVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly status: 401 | 403; readonly message: string };

/** Decides whether a request may read `/metrics` (see WebhookServerOptions.metricsAuth). */
export interface MetricsAuthorizer {
  authorize(authorization: string | undefined, signal?: AbortSignal): Promise<MetricsVerdict>;
}

export interface KubeMetricsAuthorizerOptions {
  readonly client: Pick<KubeClient, 'request'>;
  /** How long a verdict is remembered. Default 60 s. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  error?: string;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
}

export class KubeMetricsAuthorizer implements MetricsAuthorizer {
  private readonly verdicts = new BoundedMap<string, { verdict: MetricsVerdict; until: number }>(
    256,
  );

  constructor(private readonly options: KubeMetricsAuthorizerOptions) {}

  async authorize(
    authorization: string | undefined,
    signal?: AbortSignal,
  ): Promise<MetricsVerdict> {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    const token = match?.[1];
    if (!token) {
      return {
        allowed: false,
        status: 401,
        message: '/metrics needs a bearer token (a ServiceAccount token of the scraper)',
      };
    }
    const now = (this.options.now ?? Date.now)();
    const key = createHash('sha256').update(token).digest('hex');
    const known = this.verdicts.get(key);
    if (known && known.until > now) return known.verdict;
    const verdict = await this.review(token, signal);
    this.verdicts.set(key, { verdict, until: now + (this.options.ttlMs ?? 60_000) });
    return verdict;
  }

  private async review(token: string, signal?: AbortSignal): Promise<MetricsVerdict> {
    const review = await this.options.client.request<{ status?: TokenReviewStatus }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      signal,
    });
    const status = review.status ?? {};
    if (!status.authenticated || !status.user?.username) {
      return {
        allowed: false,
        status: 401,
        message: `the bearer token is not valid${status.error ? `: ${status.error}` : ''}`,
      };
    }
    const user = status.user;
    const access = await this.options.client.request<{ status?: { allowed?: boolean } }>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          uid: user.uid || undefined,
          groups: user.groups ?? [],
          extra: user.extra,
          nonResourceAttributes: { path: '/metrics', verb: 'get' },
        },
      },
      signal,
    });
    if (access.status?.allowed) return { allowed: true };
    return {
      allowed: false,
      status: 403,
      message: `${user.username ?? '?'} may not get /metrics: bind it to the ClusterRole planwright-metrics-reader`,
    };
  }
}
