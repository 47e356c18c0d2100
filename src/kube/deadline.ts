/**
 * A deadline as an AbortSignal, for work that takes one (requests, fetch, verification). In
 * the kube layer, the lowest that everything else may import, beside its backoff: the render
 * and admission workers load this layer anyway, not the runtime's metrics and caches.
 */
/** A signal with a deadline, and the means to stop its timer once the work is done. */
export interface DeadlineSignal {
  readonly signal: AbortSignal;
  /** Stops the timer and lets go of the parent signal; call it when the work has settled. */
  clear(): void;
}

/**
 * A signal that aborts when `parent` does, or after `ms` with a `TimeoutError`. Not
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: Node 20 lets the garbage collector take
 * a timeout signal that only a composite refers to, and the composite then never aborts
 * (nodejs/node#57736) — a leader's Lease renewal waited for its request's own 60 s instead of
 * the 3 s renew deadline on a busy machine, and kept leading while the API server was gone.
 * Here the timer refers to the controller it aborts.
 */
export function deadlineSignal(ms: number, parent?: AbortSignal): DeadlineSignal {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent?.reason);
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no result within ${ms} ms`, 'TimeoutError')),
    ms,
  );
  // A deadline alone never keeps the process alive: the work it bounds does, while it runs.
  timer.unref();
  const clear = (): void => {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onAbort);
  };
  if (parent?.aborted) {
    clear();
    controller.abort(parent.reason);
  } else {
    parent?.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: controller.signal, clear };
}
