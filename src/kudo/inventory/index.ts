/** Objects an Instance applied, recorded in its status for cleanup. */
export * from './inventory.ts';
