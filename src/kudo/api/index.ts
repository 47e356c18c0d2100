/** The kudo.dev/v1beta1 API: types, constants and small readers. */
export * from './types.ts';
export * from './read.ts';
export * from './contracts.ts';
export * from './status-read.ts';
export * from './json-equal.ts';
export * from './shape-check.ts';
export * from './shard.ts';
