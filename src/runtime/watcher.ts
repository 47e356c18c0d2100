/**
 * List + watch of one collection that never stops on its own: it lists in pages, watches from
 * the list's resourceVersion with bookmarks, re-watches when the server ends the stream,
 * relists on 410 Gone, reconnects after an inactivity timeout, backs off (jittered,
 * exponential, honouring Retry-After on 429) on every other error, and only returns when its
 * signal aborts.
 *
 * It owns no state besides the resourceVersion: every change is handed to `onEvent`
 * synchronously and in order. A relist is delivered as ONE `relisted` event carrying the
 * complete new list, so the consumer can build a fresh store and swap it in atomically.
 *
 * See examples/api/runtime.ts.
 */
import type { Logger } from 'pino';
import {
  ApiError,
  type KubeClient,
  type QueryValue,
  type StatusBody,
  statusToApiError,
} from '../kube/index.ts';
import { JitteredBackoff } from './backoff.ts';
import { sleep } from './time.ts';
import type { KubeObject } from './types.ts';

export type WatcherEvent<T extends KubeObject> =
  | { readonly type: 'relisted'; readonly items: T[]; readonly resourceVersion: string }
  | { readonly type: 'upsert'; readonly object: T }
  | { readonly type: 'delete'; readonly object: T };

export interface WatcherOptions<T extends KubeObject> {
  readonly client: KubeClient;
  /** Collection path, e.g. `/apis/apps/v1/deployments` or a namespaced one. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly logger: Logger;
  readonly onEvent: (event: WatcherEvent<T>) => void;
  /** Every error seen (for metrics); the watcher handles it itself. */
  readonly onError?: (error: unknown) => void;
  /** Default 500. */
  readonly pageSize?: number;
  /** No byte (not even a bookmark) for this long → reconnect. Default 3 min (bookmarks come every minute). */
  readonly inactivityMs?: number;
  /** Server-side watch timeout, seconds. Default: random in [300, 600) to spread reconnects. */
  readonly timeoutSeconds?: () => number;
  readonly backoff?: JitteredBackoff;
}

interface ListBody<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items: T[];
}

interface WatchLine<T> {
  type?: string;
  object?: T & StatusBody;
}

export class Watcher<T extends KubeObject> {
  private resourceVersion: string | undefined;
  private readonly backoff: JitteredBackoff;
  private readonly pageSize: number;
  private readonly inactivityMs: number;
  private readonly timeoutSeconds: () => number;
  /** Incremented on each relist; lets tests and metrics observe them. */
  relists = 0;
  /** When the loop last moved: a list page, a watch line, a stream end or a handled error. */
  private lastActivity = Date.now();
  /** End of the backoff sleep in progress (waiting on purpose is not being stuck). */
  private waitingUntil = 0;

  constructor(private readonly options: WatcherOptions<T>) {
    this.backoff = options.backoff ?? new JitteredBackoff();
    this.pageSize = options.pageSize ?? 500;
    this.inactivityMs = options.inactivityMs ?? 180_000;
    this.timeoutSeconds = options.timeoutSeconds ?? (() => 300 + Math.floor(Math.random() * 300));
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  get lastResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /**
   * How long the loop has shown no sign of life, ms (0 while it sleeps on purpose). An idle
   * but healthy watch still gets a bookmark about every minute and reconnects after
   * `inactivityMs`, so a value far above `inactivityMs` means the watch is wedged.
   */
  stalledMs(now: number = Date.now()): number {
    if (now < this.waitingUntil) return 0;
    return now - Math.max(this.lastActivity, this.waitingUntil);
  }

  private touch(): void {
    this.lastActivity = Date.now();
  }

  /** Runs until `signal` aborts. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.options.logger;
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === undefined) await this.relist(signal);
        if (signal.aborted) break;
        await this.watchOnce(signal);
        this.touch();
        // The server closed the stream (timeoutSeconds or restart): resume from where we are.
        log.debug(
          { path: this.options.path, resourceVersion: this.resourceVersion },
          'watch ended, re-watching',
        );
      } catch (err) {
        if (signal.aborted) break;
        this.touch();
        this.options.onError?.(err);
        if (err instanceof ApiError && err.isGone) {
          // The resourceVersion is compacted away: the only way forward is a fresh list.
          log.info({ path: this.options.path, err }, 'resourceVersion expired, relisting');
          this.resourceVersion = undefined;
          continue;
        }
        const delay =
          err instanceof ApiError && err.statusCode === 429 && err.retryAfterSeconds !== undefined
            ? err.retryAfterSeconds * 1000
            : this.backoff.next();
        log.warn(
          { path: this.options.path, err, retryInMs: Math.round(delay) },
          'watch failed, retrying',
        );
        this.waitingUntil = Date.now() + delay;
        await sleep(delay, signal);
      }
    }
  }

  private async relist(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let listRv = '';
    do {
      const query: Record<string, QueryValue> = {
        limit: this.pageSize,
        continue: continueToken,
        labelSelector: this.options.labelSelector,
        fieldSelector: this.options.fieldSelector,
      };
      let page: ListBody<T>;
      try {
        page = await this.options.client.request<ListBody<T>>({
          path: this.options.path,
          query,
          signal,
        });
      } catch (err) {
        // A continue token can expire mid-list; start the whole list again.
        if (err instanceof ApiError && err.isGone && continueToken !== undefined) {
          items.length = 0;
          continueToken = undefined;
          continue;
        }
        throw err;
      }
      this.touch();
      // List items carry no apiVersion/kind; fill them in once so consumers can rely on them.
      const kind = page.kind?.replace(/List$/, '');
      for (const item of page.items) {
        const mutable = item as { apiVersion?: string; kind?: string };
        mutable.apiVersion ??= page.apiVersion;
        mutable.kind ??= kind;
        items.push(item);
      }
      listRv = page.metadata?.resourceVersion ?? listRv;
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken !== undefined && !signal.aborted);
    if (signal.aborted) return;
    this.relists += 1;
    this.resourceVersion = listRv;
    this.options.onEvent({ type: 'relisted', items, resourceVersion: listRv });
  }

  private watchOnce(signal: AbortSignal): Promise<void> {
    const path = this.options.path;
    return this.options.client.watch({
      path,
      signal,
      inactivityMs: this.inactivityMs,
      query: {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: this.timeoutSeconds(),
        labelSelector: this.options.labelSelector,
        fieldSelector: this.options.fieldSelector,
      },
      onEvent: (raw) => {
        this.touch();
        const line = raw as WatchLine<T>;
        const object = line.object;
        if (!object) return;
        switch (line.type) {
          case 'ADDED':
          case 'MODIFIED':
            this.advance(object);
            this.options.onEvent({ type: 'upsert', object });
            return;
          case 'DELETED':
            this.advance(object);
            this.options.onEvent({ type: 'delete', object });
            return;
          case 'BOOKMARK':
            // Bookmarks only move the resourceVersion forward.
            this.advance(object);
            return;
          case 'ERROR':
            throw statusToApiError(object, path);
          default:
            return;
        }
      },
    });
  }

  private advance(object: KubeObject): void {
    const rv = object.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
  }
}
