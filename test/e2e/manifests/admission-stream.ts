// A steady, bounded stream of Instance writes through the webhooks (loopback only: the local
// apiserver), counting the requests the API server could not get answered by a webhook.
// Each write is a dry-run CREATE naming an OperatorVersion that does not exist: Planwright's
// Instance webhook refuses it with a reason (nothing is stored), so an answer is a refusal
// by the webhook and a failure is anything else — "failed calling webhook", a 5xx, a broken
// connection.
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, type KubeClient } from '../../../src/kube/index.ts';

/**
 * How much of a failure's message is kept: enough for the API server's whole "failed calling
 * webhook" message, whose end says which address and why (a cut at 300 characters lost both).
 */
const MESSAGE_CHARS = 1_000;

export interface AdmissionStreamResult {
  /** Requests the webhook answered. */
  readonly answered: number;
  /** What the other requests got, with the time since the stream started. */
  readonly failed: readonly string[];
  /** The same, each with the time (epoch ms) its answer came, to line up with a disruption. */
  readonly failures: ReadonlyArray<{ readonly at: number; readonly text: string }>;
  /** When the stream started (epoch ms): the origin of the times in `failed`. */
  readonly startedAt: number;
}

export interface AdmissionStream {
  /** Stops after the requests in flight; resolves with the counts. */
  stop(): Promise<AdmissionStreamResult>;
}

/** `workers` loops, each one request at a time with `pauseMs` between (bounded load). */
export function startAdmissionStream(input: {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly workers?: number;
  readonly pauseMs?: number;
}): AdmissionStream {
  const started = Date.now();
  const stop = new AbortController();
  let answered = 0;
  const failures: Array<{ at: number; text: string }> = [];
  const fail = (text: string): void => {
    const at = Date.now();
    failures.push({ at, text: `${at - started} ms: ${text}` });
  };
  const write = async (n: number): Promise<void> => {
    try {
      await input.client.request({
        method: 'POST',
        path: `/apis/kudo.dev/v1beta1/namespaces/${input.namespace}/instances`,
        query: { dryRun: 'All' },
        body: {
          apiVersion: 'kudo.dev/v1beta1',
          kind: 'Instance',
          metadata: { name: `stream-${n}` },
          spec: { operatorVersion: { name: 'stream-does-not-exist' } },
        },
      });
      fail('admitted (the webhook should have refused it)');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const byWebhook =
        err instanceof ApiError &&
        err.statusCode < 500 &&
        message.includes('denied the request') &&
        !message.includes('failed calling webhook');
      if (byWebhook) answered++;
      else fail(message.slice(0, MESSAGE_CHARS));
    }
  };
  let counter = 0;
  const loops = Array.from({ length: input.workers ?? 2 }, async () => {
    while (!stop.signal.aborted) {
      await write(counter++);
      await sleep(input.pauseMs ?? 50);
    }
  });
  return {
    stop: async () => {
      stop.abort();
      await Promise.all(loops);
      return { answered, failed: failures.map((f) => f.text), failures, startedAt: started };
    },
  };
}
