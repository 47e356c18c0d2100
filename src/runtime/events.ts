/**
 * Kubernetes Event recorder (core/v1 Events, as `kubectl describe` shows them). Repeats of
 * the same (object, type, reason, message) bump `count` instead of creating new Events.
 * Recording never throws and never blocks the caller; failures are logged.
 *
 * `recordOnce` is for Events that must exist exactly once per occurrence even across a crash
 * (a plan run's PlanFinished): the name is derived from the occurrence, so whoever records it
 * again — this process re-running a pass, or the next manager — lands on the same name and is
 * answered 409 AlreadyExists, which counts as recorded. The caller awaits it before the write
 * that makes the Event true; then a kill on either side of that write leaves one Event.
 *
 * See examples/api/runtime.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ApiError, type KubeClient } from '../kube/index.ts';
import type { KubeObject } from './types.ts';
import { namespacedName } from '../kube/index.ts';
import { BoundedMap } from './bounded-map.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  readonly client: KubeClient;
  /** `source.component`, e.g. `planwright`. */
  readonly component: string;
  readonly logger: Logger;
  readonly host?: string;
  /** How many distinct events are remembered for aggregation. Default 4096. */
  readonly maxRemembered?: number;
}

interface Remembered {
  readonly namespace: string;
  readonly name: string;
  count: number;
}

/** An {@link EventRecorder} bound to one `source.component` (see `forComponent`). */
export interface ComponentEventRecorder {
  record(object: KubeObject, type: EventType, reason: string, message: string): void;
  recordOnce(
    object: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    id: string,
    signal?: AbortSignal,
  ): Promise<void>;
}

/** How long recordOnce waits for its POST before giving up (logged). */
const ONCE_TIMEOUT_MS = 10_000;

/** Longest Event name (a DNS subdomain). */
const MAX_NAME = 253;

/**
 * `<object>.<16 hex of sha256(parts)>`: deterministic, so a second recording of the same
 * occurrence collides. The object's part is shortened (without a trailing `.`/`-`) so the
 * whole stays a valid DNS subdomain.
 */
export function onceName(objectName: string, parts: readonly string[]): string {
  const hash = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
  const prefix = objectName.slice(0, MAX_NAME - hash.length - 1).replace(/[.-]+$/, '');
  return `${prefix || 'object'}.${hash}`;
}

export class EventRecorder {
  /** Events remembered for aggregation (bounded, oldest forgotten first). */
  private readonly seen: BoundedMap<string, Remembered>;
  private readonly pending = new Set<Promise<void>>();
  private readonly host: string;

  constructor(private readonly options: EventRecorderOptions) {
    this.host = options.host ?? hostname();
    this.seen = new BoundedMap(options.maxRemembered ?? 4096);
  }

  /**
   * Records an Event. `component` (default: the recorder's) is the `source.component` that
   * `kubectl describe` shows as "From" — a controller that must look like a known one (KUDO's
   * `instance-controller`) names itself here; see `forComponent`.
   */
  record(
    object: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    component: string = this.options.component,
  ): void {
    const meta = object.metadata ?? {};
    const namespace = meta.namespace || 'default';
    const key = JSON.stringify([
      meta.uid ?? namespacedName({ namespace, name: meta.name }),
      type,
      reason,
      message,
      component,
    ]);
    const now = new Date().toISOString();
    const known = this.seen.get(key);
    const client = this.options.client;
    let work: Promise<unknown>;
    if (known) {
      known.count += 1;
      work = client.request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${encodeURIComponent(known.namespace)}/events/${encodeURIComponent(known.name)}`,
        contentType: 'application/merge-patch+json',
        body: { count: known.count, lastTimestamp: now },
      });
    } else {
      const name = `${meta.name ?? 'object'}.${randomBytes(8).toString('hex')}`;
      this.seen.set(key, { namespace, name, count: 1 });
      work = this.post(object, name, type, reason, message, component, now);
    }
    void this.track(work, reason, namespace, meta.name, () => {
      this.seen.delete(key);
    });
  }

  /**
   * Records the Event of one occurrence, identified by `id` (e.g. a plan run's uid and the
   * status it reached), at most once: its name is `<object>.<hash of object uid, reason, id>`,
   * and a 409 AlreadyExists (recorded before, by this process or an earlier one) counts as
   * recorded. No aggregation. Resolves once the Event is stored; never rejects: any other
   * failure is logged and the caller goes on (Events are best-effort).
   *
   * Aborting `signal` (the caller's reconcile ending: shutdown, leadership lost) ends the POST
   * at once and the Event counts as not recorded, without a warning: a stalled apiserver must
   * not hold a shutdown for the POST's own timeout. Whoever runs the pass again records it
   * under the same name.
   */
  recordOnce(
    object: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    id: string,
    signal?: AbortSignal,
    component: string = this.options.component,
  ): Promise<void> {
    const meta = object.metadata ?? {};
    const namespace = meta.namespace || 'default';
    const name = onceName(meta.name ?? 'object', [meta.uid ?? '', reason, id]);
    const work = this.post(
      object,
      name,
      type,
      reason,
      message,
      component,
      new Date().toISOString(),
      // The caller waits for it before a status write: a stalled apiserver must not hold the
      // plan for the client's default minute.
      ONCE_TIMEOUT_MS,
      signal,
    );
    return this.track(work, reason, namespace, meta.name, (err) => {
      // A 409: recorded before, by this process or an earlier one.
      if (err instanceof ApiError && err.statusCode === 409) return 'recorded';
      // Ended by the caller's abort (node's AbortError, by name: it may come from another
      // realm than ours), not a failure of its own before it.
      if (signal?.aborted && (err as { name?: unknown } | undefined)?.name === 'AbortError') {
        this.options.logger.debug(
          { reason, object: namespacedName({ namespace, name: meta.name }) },
          'event not recorded: the reconcile was aborted',
        );
        return 'given up';
      }
      return undefined;
    });
  }

  /**
   * Follows one POST/PATCH until it settles (for `flush`), logging a failure unless `onError`
   * says the failure means recorded, or was expected (given up on purpose). Never rejects.
   */
  private track(
    work: Promise<unknown>,
    reason: string,
    namespace: string,
    name: string | undefined,
    onError: (err: unknown) => 'recorded' | 'given up' | void,
  ): Promise<void> {
    const tracked: Promise<void> = work.then(
      () => undefined,
      (err: unknown) => {
        if (onError(err) !== undefined) return;
        this.options.logger.warn(
          { err, reason, object: namespacedName({ namespace, name }) },
          'could not record event',
        );
      },
    );
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
    return tracked;
  }

  /** This recorder (same aggregation, same flush) recording as `component`. */
  forComponent(component: string): ComponentEventRecorder {
    return {
      record: (object, type, reason, message) =>
        this.record(object, type, reason, message, component),
      recordOnce: (object, type, reason, message, id, signal) =>
        this.recordOnce(object, type, reason, message, id, signal, component),
    };
  }

  private post(
    object: KubeObject,
    name: string,
    type: EventType,
    reason: string,
    message: string,
    component: string,
    now: string,
    timeoutMs?: number,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const meta = object.metadata ?? {};
    const namespace = meta.namespace || 'default';
    return this.options.client.request({
      method: 'POST',
      timeoutMs,
      signal,
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: meta.name,
          namespace: meta.namespace,
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component, host: this.host },
        reportingComponent: component,
        reportingInstance: this.host,
      },
    });
  }

  /** Waits for events being written. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
