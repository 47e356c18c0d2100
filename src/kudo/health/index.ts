/** Health of applied objects: when a task's objects count as done. */
export { checkHealth, type Health } from './health.ts';
export { containerProblems, type ContainerProblem } from './container-state.ts';
// The pod-status readers the Pipe task shares with health.
export { isObject, join, list, text, type Json } from './container-state.ts';
export { READINESS_KINDS, readinessOf, type Readiness } from './readiness.ts';
