// Every state an object passed through, from a watch (a watch delivers each stored revision,
// where polling would miss the short ones), and what it tells about plan runs: a plan run
// twice shows as a second start (`startedAt`) under one plan execution uid, or as its status
// leaving a terminal state; a run of stale parameters shows as a ConfigMap value coming back.
import type { KubeClient } from '../../../src/kube/index.ts';
import type { Instance, PlanStatus } from '../../../src/kudo/api/index.ts';

export interface Revisions<T> {
  /** The object's states in the order the API server stored them. */
  readonly seen: readonly T[];
  /** Ends the watch; rejects when it had failed (a gap would make the record unsound). */
  stop(): Promise<void>;
}

/** Watches one object from `resourceVersion` (exclusive), keeping every state. */
export function watchRevisions<T>(input: {
  readonly client: KubeClient;
  /** The collection's path, e.g. /api/v1/namespaces/ns/configmaps. */
  readonly collection: string;
  readonly name: string;
  readonly resourceVersion: string;
}): Revisions<T> {
  const seen: T[] = [];
  const abort = new AbortController();
  let failure: Error | undefined;
  const done = input.client
    .watch({
      path: input.collection,
      query: {
        fieldSelector: `metadata.name=${input.name}`,
        resourceVersion: input.resourceVersion,
        timeoutSeconds: 3600,
      },
      signal: abort.signal,
      inactivityMs: 3_600_000,
      onEvent: (event) => {
        const { type, object } = event as { type: string; object: T };
        if (type === 'ERROR') throw new Error(`watch ${input.name}: ${JSON.stringify(object)}`);
        if (type === 'ADDED' || type === 'MODIFIED') seen.push(object);
      },
    })
    .then(
      () => {
        // The server ending the watch before we stop it leaves a gap.
        if (!abort.signal.aborted) failure = new Error(`watch ${input.name} ended early`);
      },
      (err: unknown) => {
        failure = err instanceof Error ? err : new Error(String(err));
      },
    );
  return {
    seen,
    stop: async () => {
      abort.abort();
      await done;
      if (failure !== undefined) throw failure;
    },
  };
}

/**
 * The plan runs that ran more than once, one line each: a uid started twice (two distinct
 * `startedAt`), or whose status changed after it was COMPLETE/FATAL_ERROR.
 */
export function repeatedRuns(states: readonly Instance[], plan: string): string[] {
  const started = new Map<string, Set<string>>();
  const finished = new Map<string, PlanStatus>();
  const problems: string[] = [];
  for (const [k, instance] of states.entries()) {
    const ps = instance.status?.planStatus?.[plan];
    const uid = ps?.uid ?? '';
    if (!ps || uid === '') continue;
    const starts = started.get(uid) ?? new Set<string>();
    if (ps.startedAt) starts.add(ps.startedAt);
    started.set(uid, starts);
    const terminal = finished.get(uid);
    if (terminal && JSON.stringify(terminal) !== JSON.stringify(ps)) {
      problems.push(
        `run ${uid} changed after ${terminal.status ?? ''} (state ${k}): now ${ps.status ?? ''} at ${ps.lastUpdatedTimestamp ?? ''}`,
      );
    }
    if (!terminal && (ps.status === 'COMPLETE' || ps.status === 'FATAL_ERROR')) {
      finished.set(uid, ps);
    }
  }
  for (const [uid, starts] of started) {
    if (starts.size > 1)
      problems.push(`run ${uid} started ${starts.size} times: ${[...starts].join(', ')}`);
  }
  return problems;
}

/** Consecutive duplicates removed: the values an object took, in order. */
export function valueChanges(values: readonly string[]): string[] {
  return values.filter((v, i) => i === 0 || values[i - 1] !== v);
}
