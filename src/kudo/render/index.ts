/** Rendering an OperatorVersion's templates into decorated Kubernetes objects. */
export * from './variables.ts';
export * from './templates.ts';
export * from './labels.ts';
export * from './renderer.ts';
export * from './budget.ts';
export * from './bounded.ts';
export * from './memory-budget.ts';
