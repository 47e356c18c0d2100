/** Objects an Instance applied, recorded in its status for cleanup, prune and drift. */
export * from './inventory.ts';
export * from './policy.ts';
export * from './drift.ts';
export * from './collected.ts';
