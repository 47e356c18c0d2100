/**
 * The API calls the `kubectl kudo` verbs make, on the raw client (status codes, Status
 * messages and per-request timeouts are what the commands report). Objects are kudo.dev/v1beta1
 * Operators, OperatorVersions and Instances plus the few core calls install needs.
 */
import { ApiError, type KubeClient } from '../kube/index.ts';
import {
  KUDO_API_VERSION,
  type Instance,
  type Operator,
  type OperatorVersion,
} from '../kudo/api/index.ts';

export type KudoResource = 'operators' | 'operatorversions' | 'instances';

interface List<T> {
  items?: T[];
}

/** The Status message of an API error (what kubectl shows), else the error's own text. */
export function apiMessage(err: unknown): string {
  if (err instanceof ApiError) return err.status?.message ?? err.message;
  if (err instanceof Error) return describeNetworkError(err);
  return String(err);
}

/** undici/node report "fetch failed"/"connect ECONNREFUSED" and hide the reason in `cause`. */
function describeNetworkError(err: Error): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 4; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    parts.push(code && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
  }
  return parts.join(': ');
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.statusCode === 404;
}

export class KudoApi {
  constructor(
    readonly client: KubeClient,
    /** Per-request timeout (--request-timeout); undefined keeps the client's default. */
    private readonly timeoutMs?: number,
    /** Prints a warning the API server returned (admission warnings), as kubectl does. */
    private readonly onWarning?: (warning: string) => void,
  ) {}

  private path(resource: KudoResource, namespace: string, name?: string): string {
    const base = `/apis/${KUDO_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
    return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  }

  private request<T>(options: Parameters<KubeClient['request']>[0]): Promise<T> {
    const warn = this.onWarning;
    return this.client.request<T>({
      ...options,
      ...(this.timeoutMs !== undefined ? { timeoutMs: this.timeoutMs } : {}),
      ...(warn ? { onWarnings: (warnings) => warnings.forEach((w) => warn(w)) } : {}),
    });
  }

  /** GET of one object; undefined when it does not exist. */
  async get<T>(resource: KudoResource, namespace: string, name: string): Promise<T | undefined> {
    try {
      return await this.request<T>({ path: this.path(resource, namespace, name) });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list<T>(resource: KudoResource, namespace: string): Promise<T[]> {
    const list = await this.request<List<T>>({ path: this.path(resource, namespace) });
    return list.items ?? [];
  }

  create<T extends { metadata: { namespace?: string } }>(
    resource: KudoResource,
    namespace: string,
    body: T,
  ): Promise<T> {
    return this.request<T>({ method: 'POST', path: this.path(resource, namespace), body });
  }

  getInstance(namespace: string, name: string): Promise<Instance | undefined> {
    return this.get<Instance>('instances', namespace, name);
  }

  getOperatorVersion(namespace: string, name: string): Promise<OperatorVersion | undefined> {
    return this.get<OperatorVersion>('operatorversions', namespace, name);
  }

  getOperator(namespace: string, name: string): Promise<Operator | undefined> {
    return this.get<Operator>('operators', namespace, name);
  }

  /** One JSON merge patch of an Instance (the webhook judges it). */
  patchInstance(namespace: string, name: string, patch: unknown): Promise<Instance> {
    return this.request<Instance>({
      method: 'PATCH',
      path: this.path('instances', namespace, name),
      body: patch,
      contentType: 'application/merge-patch+json',
    });
  }

  deleteInstance(namespace: string, name: string): Promise<unknown> {
    return this.request({
      method: 'DELETE',
      path: this.path('instances', namespace, name),
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
    });
  }

  getNamespace(name: string): Promise<unknown> {
    return this.request({ path: `/api/v1/namespaces/${encodeURIComponent(name)}` });
  }

  createNamespace(body: Record<string, unknown>): Promise<unknown> {
    return this.request({ method: 'POST', path: '/api/v1/namespaces', body });
  }

  /** The server's `/version`: gitVersion plus major/minor as reported. */
  serverVersion(): Promise<{ gitVersion: string; major?: string; minor?: string }> {
    return this.request({ path: '/version' });
  }
}
