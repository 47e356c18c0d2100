/**
 * One place for applying and deleting sets of objects, in the manner of fluxcd/pkg/ssa's
 * ResourceManager: objects are applied in stages (CustomResourceDefinitions and Namespaces
 * before what may be of their kind or live in them, webhook configurations after what they
 * call), each apply says what it did (a change set: created, configured, unchanged), and
 * deletions say whether the object is gone, still finalizing, abandoned or left alone.
 *
 * Behind {@link ResourceManager.apply}: the unchanged check (a current copy that already holds
 * what we would send is not written), the create-vs-apply choice (a create where it stores what
 * an apply would, being cheaper for the API server) and the ownership handover between a
 * create's Update entry and the apply's Apply entry (inside {@link ServerSideApply.apply}).
 * Which objects belong to a set — an inventory — is the caller's: this layer knows no owner.
 *
 * The client is the caller's too: a manager is built over one {@link ServerSideApply} (or its
 * options), so a caller that must act as someone else builds one over that client.
 */
import {
  ServerSideApply,
  createsAsApplied,
  describeObject,
  isUnchanged,
  stripForApply,
  type ApplyObject,
  type ServerSideApplyOptions,
} from './apply.ts';
import { UnknownKindError } from './errors.ts';
import { collectionPath, objectPath, type ResourceMapper } from './gvk.ts';
import type { KubeClient } from './client.ts';
import { setTimeout as delay } from 'node:timers/promises';

/** What an apply or a deletion did to one object. */
export type ChangeAction =
  | 'created'
  | 'configured'
  | 'unchanged'
  | 'deleted'
  | 'deleting'
  | 'abandoned'
  | 'skipped'
  | 'absent';

export interface ChangeSetEntry {
  /** `Kind namespace/name`, for messages and logs. */
  readonly subject: string;
  readonly action: ChangeAction;
  /**
   * Applied: the object as stored (or the live copy that was already as wanted). Deleting
   * without a DELETE of ours: the live object. Otherwise the object as it was asked for.
   */
  readonly object: ApplyObject;
}

/** What a set of applies or deletions did, one entry per object, in the order given. */
export class ChangeSet {
  readonly entries: ChangeSetEntry[] = [];

  add(entry: ChangeSetEntry): void {
    this.entries.push(entry);
  }
}

/** One object to apply, with what the caller knows about it. */
export interface ApplyRequest {
  readonly desired: ApplyObject;
  /**
   * Whether it may exist already (the caller applied it before). An object not known is
   * made without looking first: a create where that stores what an apply would.
   */
  readonly known: boolean;
  /** Created when absent, never written once it exists (its live copy is the result). */
  readonly createOnly?: boolean;
  /**
   * A current copy of the live object the caller holds (a watch cache), or undefined when it
   * cannot vouch for one. Used only when it already holds what we want; a copy that differs
   * may predate our last write and is never written over blindly (a GET decides).
   */
  readonly cached?: () => Promise<ApplyObject | undefined>;
  /**
   * Called with the live object before it is written over — found by a create that answered
   * that it exists, or by the look at a known object that has to change — so the caller can
   * judge whose it is; throwing leaves it unwritten. Not called for a `createOnly` object that
   * exists (it is not written) nor for a cached copy that already holds what we want.
   */
  readonly existing?: (live: ApplyObject) => void | Promise<void>;
}

/** One object to delete. */
export interface DeleteRequest {
  readonly object: ApplyObject;
  /**
   * Left alone when the live object answers a reason: it is someone else's. The entry says
   * `skipped`.
   */
  readonly skip?: (live: ApplyObject) => boolean;
  /**
   * Abandoned instead of deleted: the owner reference with this uid is removed (so no garbage
   * collector deletes it with its owner), the object stays. The entry says `abandoned`.
   */
  readonly abandonOwner?: string;
  /** The live object as the caller has just read it: used instead of a GET. */
  readonly live?: ApplyObject;
}

/** An apply of {@link ResourceManager.applyAll} failed: which object, and why (`cause`). */
export class ApplyError extends Error {
  constructor(
    readonly subject: string,
    override readonly cause: unknown,
  ) {
    super(`applying ${subject}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'ApplyError';
  }
}

/** A CustomResourceDefinition did not become Established and served in time. */
export class CrdNotEstablishedError extends Error {
  constructor(
    readonly crd: string,
    readonly timeoutMs: number,
  ) {
    super(
      `CRD ${crd} is not Established and served within ${timeoutMs / 1000} s; check the API server`,
    );
    this.name = 'CrdNotEstablishedError';
  }
}

interface CrdSpec {
  readonly group?: string;
  readonly names?: { readonly plural?: string };
  readonly versions?: ReadonlyArray<{ readonly name?: string; readonly served?: boolean }>;
}

/** Whether a CustomResourceDefinition's `Established` condition is True. */
export function crdEstablished(crd: ApplyObject): boolean {
  const conditions = (crd['status'] as { conditions?: unknown } | undefined)?.conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some(
      (c: { type?: unknown; status?: unknown }) => c.type === 'Established' && c.status === 'True',
    )
  );
}

function crdRef(name: string): ApplyObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
  };
}

type WebhookList = Array<{ clientConfig?: { url?: string; service?: unknown } }>;

/**
 * A webhook configuration whose webhooks switch between a `url` and a `service` client config
 * (a local `start --install` registration over an `init` installation, or the reverse):
 * server-side apply cannot drop the other field manager's half, and the API server rejects a
 * webhook with both, so the whole `webhooks` list is replaced with one JSON merge patch (lists
 * are replaced wholesale). Undefined — apply as usual, keeping the fields of others such as the
 * caBundle a certificate injector writes — for any other object or change.
 */
async function replaceWebhookClientConfigs(
  ssa: ServerSideApply,
  desired: ApplyObject,
  live: ApplyObject,
  signal: AbortSignal | undefined,
): Promise<ApplyObject | undefined> {
  if (
    desired.kind !== 'MutatingWebhookConfiguration' &&
    desired.kind !== 'ValidatingWebhookConfiguration'
  )
    return undefined;
  const wanted = (desired['webhooks'] as WebhookList | undefined) ?? [];
  const wantsUrl = wanted.some((w) => w.clientConfig?.url !== undefined);
  const clash = ((live['webhooks'] as WebhookList | undefined) ?? []).some((w) =>
    wantsUrl ? w.clientConfig?.service !== undefined : w.clientConfig?.url !== undefined,
  );
  if (!clash) return undefined;
  const mapping = await ssa.mapping(desired, signal);
  return ssa.client.request<ApplyObject>({
    method: 'PATCH',
    path: objectPath(mapping, desired.metadata?.name ?? ''),
    body: {
      // The annotations too: the registration names its installation in one (a takeover
      // between `start --install` and `init` moves it with the webhooks).
      metadata: {
        labels: desired.metadata?.labels ?? {},
        annotations: desired.metadata?.annotations,
      },
      webhooks: wanted,
    },
    contentType: 'application/merge-patch+json',
    signal,
    timeoutMs: ssa.timeoutMs,
  });
}

/** The stage an object is applied in: 0 before, 2 after everything else (1). */
export function applyStage(obj: ApplyObject): 0 | 1 | 2 {
  const kind = obj.kind ?? '';
  if (kind === 'CustomResourceDefinition' || kind === 'Namespace') return 0;
  if (kind === 'MutatingWebhookConfiguration' || kind === 'ValidatingWebhookConfiguration')
    return 2;
  return 1;
}

/** `items` grouped by the stage of their object, in stage order; empty stages left out. */
export function applyStages<T>(items: readonly T[], objectOf: (item: T) => ApplyObject): T[][] {
  const stages: T[][] = [[], [], []];
  for (const item of items) stages[applyStage(objectOf(item))]?.push(item);
  return stages.filter((s) => s.length > 0);
}

export class ResourceManager {
  readonly ssa: ServerSideApply;

  /** Over an existing {@link ServerSideApply}, or one built from its options (client included). */
  constructor(over: ServerSideApply | ServerSideApplyOptions) {
    this.ssa = over instanceof ServerSideApply ? over : new ServerSideApply(over);
  }

  get mapper(): ResourceMapper {
    return this.ssa.mapper;
  }

  get client(): KubeClient {
    return this.ssa.client;
  }

  /** The live object, or undefined when it does not exist. */
  get(obj: ApplyObject, signal?: AbortSignal): Promise<ApplyObject | undefined> {
    return this.ssa.get(obj, signal);
  }

  /**
   * Applies one object unless it already is what we want. Known objects: a cached copy that
   * holds what we want is taken as is, else a GET decides (unchanged, or applied with the live
   * copy so the field ownership is handed over first). Objects not known: made at once
   * ({@link createOrApply}). `createOnly`: a GET first whatever is known; written only when
   * absent.
   */
  async apply(request: ApplyRequest, signal?: AbortSignal): Promise<ChangeSetEntry> {
    const { desired, known, createOnly = false } = request;
    const subject = describeObject(desired);
    if (known && !createOnly && request.cached) {
      const cached = await request.cached();
      if (cached && isUnchanged(desired, cached))
        return { subject, action: 'unchanged', object: cached };
    }
    const live = known || createOnly ? await this.ssa.get(desired, signal) : undefined;
    if (live && (createOnly || isUnchanged(desired, live)))
      return { subject, action: 'unchanged', object: live };
    if (live) {
      await request.existing?.(live);
      const patched = await replaceWebhookClientConfigs(this.ssa, desired, live, signal);
      const object = patched ?? (await this.ssa.apply(desired, { signal, live }));
      return { subject, action: 'configured', object };
    }
    return this.createOrApply(desired, { signal, existing: request.existing });
  }

  /**
   * Applies the requests stage by stage ({@link applyStage}: CustomResourceDefinitions and
   * Namespaces first, webhook configurations last), one after another in the order given, into
   * one change set. `onApplied` hears each entry as it is made. A failure is an
   * {@link ApplyError} naming the object; what was applied before it stays applied.
   */
  async applyAll(
    requests: readonly ApplyRequest[],
    options: {
      readonly signal?: AbortSignal;
      readonly onApplied?: (e: ChangeSetEntry) => void;
    } = {},
  ): Promise<ChangeSet> {
    const set = new ChangeSet();
    for (const stage of applyStages(requests, (r) => r.desired)) {
      for (const request of stage) {
        let entry: ChangeSetEntry;
        try {
          entry = await this.apply(request, options.signal);
        } catch (err) {
          if (options.signal?.aborted) throw err;
          throw new ApplyError(describeObject(request.desired), err);
        }
        set.add(entry);
        options.onApplied?.(entry);
      }
    }
    return set;
  }

  /**
   * Writes `obj` over the live object now, without a look first: the caller has just seen the
   * live object differ (drift correction).
   */
  async reapply(obj: ApplyObject, signal?: AbortSignal): Promise<ChangeSetEntry> {
    return {
      subject: describeObject(obj),
      action: 'configured',
      object: await this.ssa.apply(obj, { signal }),
    };
  }

  /**
   * Waits until each CustomResourceDefinition named is Established — and with `served`, until
   * its kind is served too (a list of its first served version answers: that lags Established a
   * little) — looking every `intervalMs`; a {@link CrdNotEstablishedError} after `timeoutMs`.
   */
  async waitEstablished(
    names: readonly string[],
    options: {
      readonly signal?: AbortSignal;
      readonly served?: boolean;
      readonly timeoutMs?: number;
      readonly intervalMs?: number;
    } = {},
  ): Promise<void> {
    const { signal, served = false, timeoutMs = 30_000, intervalMs = 100 } = options;
    const deadline = Date.now() + timeoutMs;
    for (const name of names) {
      for (;;) {
        const live = await this.ssa.get(crdRef(name), signal);
        if (live && crdEstablished(live) && (!served || (await this.served(live, signal)))) break;
        if (Date.now() > deadline) throw new CrdNotEstablishedError(name, timeoutMs);
        // Rejects with the signal's AbortError when the caller gives up.
        await delay(intervalMs, undefined, { signal });
      }
    }
  }

  /** Whether a list of the CRD's kind (its first served version) answers. */
  private async served(crd: ApplyObject, signal?: AbortSignal): Promise<boolean> {
    const spec = crd['spec'] as CrdSpec | undefined;
    const version = spec?.versions?.find((v) => v.served !== false)?.name;
    if (!spec?.group || !spec.names?.plural || !version) return false;
    return this.client
      .request({
        path: `/apis/${spec.group}/${version}/${spec.names.plural}`,
        query: { limit: 1 },
        signal,
        timeoutMs: this.ssa.timeoutMs,
      })
      .then(
        () => true,
        () => false,
      );
  }

  /**
   * Makes an object believed absent: a create (POST with the field manager and strict field
   * validation) when the object is one whose create stores what an apply would
   * ({@link createsAsApplied}), else — or when the create fails for any reason (it exists
   * already, or the server refuses the body: the apply then answers as it always did) — a
   * server-side apply. The create is cheaper for kube-apiserver and etcd than the apply of a
   * new object (bench/apiserver-cost.ts). Its fields are owned by the manager's Update entry;
   * {@link ServerSideApply.apply} hands them to the Apply entry when it has to. With
   * `existing`, an object that exists is shown to it before anything is written.
   */
  async createOrApply(
    obj: ApplyObject,
    options: {
      readonly signal?: AbortSignal;
      readonly existing?: (live: ApplyObject) => void | Promise<void>;
    } = {},
  ): Promise<ChangeSetEntry> {
    const { existing, signal } = options;
    const subject = describeObject(obj);
    const on = { signal };
    if (createsAsApplied(obj)) {
      const created = await this.create(obj, signal);
      if (created) return { subject, action: 'created', object: created };
    }
    if (existing) {
      // Only an object that exists may be someone else's: the caller judges it before it is
      // written over.
      const live = await this.ssa.get(obj, signal);
      if (live) {
        await existing(live);
        return {
          subject,
          action: 'configured',
          object: await this.ssa.apply(obj, { ...on, live }),
        };
      }
    }
    // Without a look first an apply cannot tell a create from an update: "created" is what it
    // was asked for (an object believed absent).
    return { subject, action: 'created', object: await this.ssa.apply(obj, on) };
  }

  /** A create (POST); undefined when the server refused it for any reason but an abort. */
  private async create(obj: ApplyObject, signal?: AbortSignal): Promise<ApplyObject | undefined> {
    const mapping = await this.ssa.mapping(obj, signal);
    const ns = mapping.namespaced ? obj.metadata?.namespace : undefined;
    try {
      return await this.client.request<ApplyObject>({
        method: 'POST',
        path: collectionPath(mapping, ns),
        query: { fieldManager: this.ssa.fieldManager, fieldValidation: 'Strict' },
        body: stripForApply(obj),
        signal,
        timeoutMs: this.ssa.timeoutMs,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      return undefined;
    }
  }

  /**
   * Deletes one object (background propagation), or lets go of it (`abandonOwner`), or leaves
   * it (`skip`). `absent` when it does not exist or its kind is no longer served (then neither
   * can it); `deleting` while finalizers still hold it.
   */
  async delete(request: DeleteRequest, signal?: AbortSignal): Promise<ChangeSetEntry> {
    const { object } = request;
    const subject = describeObject(object);
    const entry = (action: ChangeAction): ChangeSetEntry => ({ subject, action, object });
    try {
      const live = request.live ?? (await this.ssa.get(object, signal));
      if (!live) return entry('absent');
      if (request.skip?.(live)) return { subject, action: 'skipped', object: live };
      if (request.abandonOwner !== undefined) {
        await this.abandon(live, request.abandonOwner, signal);
        return entry('abandoned');
      }
      // Already going: another DELETE would only say so again.
      if (live.metadata?.['deletionTimestamp'])
        return { subject, action: 'deleting', object: live };
      return entry((await this.ssa.remove(object, signal)) === 'gone' ? 'deleted' : 'deleting');
    } catch (err) {
      if (err instanceof UnknownKindError) return entry('absent');
      throw err;
    }
  }

  /**
   * Removes the owner reference with uid `ownerUid` from a live object (so no garbage collector
   * deletes it with that owner). Guarded by the resourceVersion: a conflict throws and the
   * caller retries. Nothing is written when there is no such reference.
   */
  async abandon(live: ApplyObject, ownerUid: string, signal?: AbortSignal): Promise<void> {
    const refs = live.metadata?.['ownerReferences'];
    if (!Array.isArray(refs)) return;
    const rest = (refs as Array<{ uid?: string }>).filter((r) => r.uid !== ownerUid);
    if (rest.length === refs.length) return;
    const mapping = await this.ssa.mapping(live, signal);
    await this.client.request({
      method: 'PATCH',
      path: objectPath(
        mapping,
        live.metadata?.name ?? '',
        mapping.namespaced ? live.metadata?.namespace : undefined,
      ),
      contentType: 'application/merge-patch+json',
      body: {
        metadata: {
          ownerReferences: rest.length > 0 ? rest : null,
          resourceVersion: live.metadata?.['resourceVersion'],
        },
      },
      signal,
    });
  }
}
