// A stream of real Instance writes, each one a parameter change that schedules a plan run,
// one at a time: the next is written once the run of the last one is COMPLETE, so every
// write's run is expected to finish (none is superseded), and a run that never finishes is a
// plan lost.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeClient } from '../../../src/kube/index.ts';
import type { Instance } from '../../../src/kudo/api/index.ts';
import { waitFor } from '../../support/wait.ts';

export interface PlanWrite {
  /** The value written to the parameter. */
  readonly value: string;
  /** The plan execution uid the webhook gave the change. */
  readonly uid: string;
}

export interface PlanWrites {
  /** Resolves once `n` more writes have their run COMPLETE. */
  more(n: number): Promise<void>;
  /** Stops after the write in progress completes; rejects with the first failure. */
  stop(): Promise<readonly PlanWrite[]>;
  /**
   * Writes the API server refused because its call to a webhook was lost (the `lostCall`
   * test), each written again: nothing was stored, as for any request an admission refuses.
   */
  readonly lost: readonly string[];
}

/** More lost calls than this is not a disruption's window any more: the stream fails. */
const MAX_LOST = 5;

export function startPlanWrites(input: {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly instance: string;
  readonly parameter: string;
  readonly plan: string;
  /** How long one run may take, the disruption included. */
  readonly runTimeoutMs: number;
  /**
   * Whether a refused write's message is a webhook call lost to a disruption (a process
   * killed with -9 takes the calls it was answering with it, and Kubernetes does not retry a
   * webhook call): such a write is recorded in `lost` and written again. Any other refusal
   * ends the stream.
   */
  readonly lostCall?: (message: string) => boolean;
}): PlanWrites {
  const path = `/apis/kudo.dev/v1beta1/namespaces/${input.namespace}/instances/${input.instance}`;
  const stop = new AbortController();
  const written: PlanWrite[] = [];
  const lost: string[] = [];
  const patch = async (value: string): Promise<Instance> => {
    for (;;) {
      try {
        return await input.client.request<Instance>({
          method: 'PATCH',
          path,
          body: { spec: { parameters: { [input.parameter]: value } } },
          contentType: 'application/merge-patch+json',
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (!input.lostCall?.(message) || lost.length >= MAX_LOST) throw err;
        lost.push(`${value}: ${message}`);
      }
    }
  };
  const loop = (async (): Promise<void> => {
    for (let k = 1; !stop.signal.aborted; k++) {
      const value = `write-${k}`;
      const patched = await patch(value);
      const uid = patched.spec?.planExecution?.uid ?? '';
      if (uid === '') throw new Error(`${value}: the webhook scheduled no plan`);
      await waitFor(
        `run ${uid} of ${value} COMPLETE`,
        async () => {
          const ps = (await input.client.request<Instance>({ path })).status?.planStatus?.[
            input.plan
          ];
          if (ps?.uid === uid && ps.status === 'FATAL_ERROR') {
            throw new Error(`run ${uid} of ${value} failed: ${JSON.stringify(ps)}`);
          }
          return ps?.uid === uid && ps.status === 'COMPLETE';
        },
        { timeoutMs: input.runTimeoutMs, intervalMs: 100 },
      );
      written.push({ value, uid });
      await sleep(50);
    }
  })();
  // Kept until stop() reports it.
  loop.catch(() => undefined);
  return {
    lost,
    more: async (n) => {
      const target = written.length + n;
      await Promise.race([
        loop.then(() => {
          throw new Error('the writes stopped');
        }),
        waitFor(`${n} more plan runs COMPLETE`, () => written.length >= target, {
          timeoutMs: input.runTimeoutMs * n,
          intervalMs: 100,
        }),
      ]);
    },
    stop: async () => {
      stop.abort();
      await loop;
      return written;
    },
  };
}
