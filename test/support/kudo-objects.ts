// Builders of kudo.dev objects for tests, with no cluster access (unit and integration tests
// alike): the parts most test packages write the same way.
import type { Plan, Step } from '../../src/kudo/api/index.ts';

/** A plan of one serial phase `main` running `steps` in order: the shape of most test packages. */
export function serialPlan(steps: Step[]): Plan {
  return { strategy: 'serial', phases: [{ name: 'main', strategy: 'serial', steps }] };
}
