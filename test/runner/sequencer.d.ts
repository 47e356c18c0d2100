// Types of sequencer.js (plain JavaScript: jest loads a sequencer without transforming it).
export default class PlannedOrder {
  sort<T extends { readonly path: string }>(tests: readonly T[]): T[];
  allFailedTests<T>(tests: readonly T[]): readonly T[];
  cacheResults(): void;
}
