import { probe, type ProbeResult, type ProbeTls } from './http.ts';

/**
 * The few admin calls the harness makes to its own apiserver (bootstrap objects, readiness
 * checks, clean-up). Plain HTTPS through `probe`: src/localcluster stays free of client
 * libraries, and each call has a hard timeout.
 */
export class AdminApi {
  constructor(
    private readonly server: string,
    private readonly tls: ProbeTls,
  ) {}

  request(method: string, path: string, body?: unknown): Promise<ProbeResult> {
    return probe(`${this.server}${path}`, {
      tls: this.tls,
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** GETs a JSON object; undefined when it does not exist (404). */
  async get<T>(path: string): Promise<T | undefined> {
    const res = await this.request('GET', path);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new AdminApiError('GET', path, res);
    return JSON.parse(res.body) as T;
  }

  /** POSTs an object to a collection; an object that already exists is fine. */
  async create(collectionPath: string, manifest: unknown): Promise<void> {
    const res = await this.request('POST', collectionPath, manifest);
    if (res.status !== 201 && res.status !== 200 && res.status !== 409) {
      throw new AdminApiError('POST', collectionPath, res);
    }
  }

  /** DELETEs an object; one already gone is fine. */
  async delete(path: string): Promise<void> {
    const res = await this.request('DELETE', path);
    if (res.status !== 200 && res.status !== 202 && res.status !== 404) {
      throw new AdminApiError('DELETE', path, res);
    }
  }
}

export class AdminApiError extends Error {
  override readonly name = 'AdminApiError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly response: ProbeResult,
  ) {
    super(`${method} ${path} answered ${response.status}: ${response.body.slice(0, 500)}`);
  }
}
