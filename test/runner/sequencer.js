// The order of a lane's files: the one the runner planned (test/runner/plan.ts, longest
// first), read from the JSON list PLANWRIGHT_TEST_ORDER names. Jest's own sequencer orders by
// the times it cached under the checkout's path, which a fresh clone does not have. Files the
// list does not name (a run outside the runner) keep jest's order, after the named ones.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export default class PlannedOrder {
  constructor() {
    const file = process.env.PLANWRIGHT_TEST_ORDER;
    /** @type {string[]} */
    const order = file ? JSON.parse(readFileSync(file, 'utf8')) : [];
    this.rank = new Map(order.map((path, i) => [resolve(path), i]));
  }

  /** @param {{ path: string }[]} tests */
  sort(tests) {
    const rank = (test) => this.rank.get(test.path) ?? this.rank.size;
    return [...tests].sort((a, b) => rank(a) - rank(b));
  }

  /** @param {unknown[]} tests */
  allFailedTests(tests) {
    return tests;
  }

  cacheResults() {}
}
