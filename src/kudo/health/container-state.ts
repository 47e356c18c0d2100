/**
 * A pod's containers in words a person can act on: each init container that has not finished
 * and each container that is not ready, with its state, its last termination and its restarts
 * (what `kubectl describe pod` shows), e.g. `container app is waiting: ImagePullBackOff: …`.
 */

/** Pod status fields as the API server sends them (read, never trusted to be well-formed). */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

export function join(...parts: string[]): string {
  return parts.filter((p) => p !== '').join(': ');
}

function terminated(t: Json): string {
  const code = typeof t['exitCode'] === 'number' ? `exit code ${t['exitCode']}` : '';
  return [join(text(t['reason']), text(t['message'])), code].filter((p) => p !== '').join(', ');
}

/** One container's state in words. */
function containerState(kind: string, c: Json): string {
  const name = text(c['name']);
  const state = isObject(c['state']) ? c['state'] : {};
  const last =
    isObject(c['lastState']) && isObject(c['lastState']['terminated'])
      ? ` (last run: ${terminated(c['lastState']['terminated'])})`
      : '';
  const restarts =
    typeof c['restartCount'] === 'number' && c['restartCount'] > 0
      ? `, ${c['restartCount']} restarts`
      : '';
  if (isObject(state['waiting'])) {
    const w = state['waiting'];
    return `${kind} ${name} is waiting: ${join(text(w['reason']), text(w['message'])) || 'no reason given'}${last}${restarts}`;
  }
  if (isObject(state['terminated'])) {
    return `${kind} ${name} terminated: ${terminated(state['terminated'])}${restarts}`;
  }
  if (isObject(state['running'])) return `${kind} ${name} is running${last}${restarts}`;
  return `${kind} ${name} has not started`;
}

export interface ContainerProblem {
  /** The container's name. */
  readonly name: string;
  readonly init: boolean;
  /** e.g. `container app is waiting: ImagePullBackOff: Back-off pulling image "x"`. */
  readonly detail: string;
}

/** What keeps a pod (its `status`) from being ready, container by container. */
export function containerProblems(status: unknown): ContainerProblem[] {
  const s = isObject(status) ? status : {};
  const problems: ContainerProblem[] = [];
  for (const c of list(s['initContainerStatuses'])) {
    const state = isObject(c['state']) ? c['state'] : {};
    const done = isObject(state['terminated']) && state['terminated']['exitCode'] === 0;
    if (!done) {
      problems.push({
        name: text(c['name']),
        init: true,
        detail: containerState('init container', c),
      });
    }
  }
  for (const c of list(s['containerStatuses'])) {
    if (c['ready'] === true) continue;
    problems.push({ name: text(c['name']), init: false, detail: containerState('container', c) });
  }
  return problems;
}
