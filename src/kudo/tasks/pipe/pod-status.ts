/**
 * Where a pipe pod stands: ready (init container done, waiter running and Ready), failed, or
 * waiting — with what it waits for in words a person can act on: scheduling, the init
 * container's state and its last termination reason, the waiter's image pull.
 */
import { describeObject, type ApplyObject } from '../../../kube/index.ts';
import { containerProblems, isObject, join, list, text, type Json } from '../../health/index.ts';
import { WAITER_CONTAINER } from './pod.ts';

export type PipePodState =
  | { readonly state: 'ready' }
  | { readonly state: 'waiting'; readonly message: string }
  | { readonly state: 'failed'; readonly message: string };

function condition(status: Json, type: string): Json | undefined {
  return list(status['conditions']).find((c) => c['type'] === type);
}

export function pipePodState(pod: ApplyObject, waiterImageHint: string): PipePodState {
  const name = describeObject(pod);
  if (pod.metadata?.['deletionTimestamp']) {
    return { state: 'waiting', message: `pipe pod ${name} is being deleted` };
  }
  const status = isObject(pod['status']) ? pod['status'] : {};
  const phase = text(status['phase']) || 'Pending';
  if (phase === 'Failed' || phase === 'Succeeded') {
    const why = join(text(status['reason']), text(status['message']));
    return {
      state: 'failed',
      message: `pipe pod ${name} ended ${phase}${why ? `: ${why}` : ''}; its waiter must keep running until the files are copied`,
    };
  }
  if (phase === 'Running' && condition(status, 'Ready')?.['status'] === 'True') {
    return { state: 'ready' };
  }
  const scheduled = condition(status, 'PodScheduled');
  if (scheduled?.['status'] === 'False') {
    return {
      state: 'waiting',
      message: `pipe pod ${name} is not scheduled: ${join(text(scheduled['reason']), text(scheduled['message'])) || 'no reason given'}`,
    };
  }
  const details = containerProblems(status).map(({ name: container, init, detail }) =>
    !init && container === WAITER_CONTAINER && /Image|ErrImage/.test(detail)
      ? `${detail} (the waiter image is ${waiterImageHint}; set another with the manager's --pipe-waiter-image, e.g. a mirror)`
      : detail,
  );
  return {
    state: 'waiting',
    message: `pipe pod ${name} is ${phase} and not Ready${details.length > 0 ? `: ${details.join('; ')}` : ''}`,
  };
}
