/**
 * Kubernetes Event recorder (core/v1 Events, as `kubectl describe` shows them). Repeats of
 * the same (object, type, reason, message) bump `count` instead of creating new Events.
 * Recording never throws and never blocks the caller; failures are logged.
 *
 * See examples/api/runtime.ts.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { KubeClient } from '../kube/index.ts';
import type { KubeObject } from './types.ts';
import { namespacedName } from '../kube/names.ts';
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
      work = client.request({
        method: 'POST',
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
    const tracked: Promise<void> = work.then(
      () => undefined,
      (err: unknown) => {
        this.seen.delete(key);
        this.options.logger.warn(
          { err, reason, object: namespacedName({ namespace, name: meta.name }) },
          'could not record event',
        );
      },
    );
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  /** This recorder (same aggregation, same flush) recording as `component`. */
  forComponent(component: string): {
    record(object: KubeObject, type: EventType, reason: string, message: string): void;
  } {
    return {
      record: (object, type, reason, message) =>
        this.record(object, type, reason, message, component),
    };
  }

  /** Waits for events being written. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
