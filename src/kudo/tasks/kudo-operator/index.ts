/** The KudoOperator task: child Instances of operator dependencies. */
export { runKudoOperator } from './run.ts';
export { childProgress, childTarget, type ChildTarget } from './child.ts';
