// Render jobs for the render tests: the variables of one step, a job from a template's text,
// and the error a promise rejects with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { RenderJob, TemplateScalars } from '../../../../src/kudo/render/index.ts';

export const scalars: TemplateScalars = {
  Name: 'inst',
  Namespace: 'ns',
  OperatorName: 'op',
  OperatorVersion: '1.0',
  AppVersion: '1',
  PlanName: 'deploy',
  PhaseName: 'main',
  StepName: 'all',
};

export function job(
  template: string,
  text: string,
  parameters: RenderJob['parameters'] = [],
  maxOutputChars = 1 << 20,
): RenderJob {
  return { key: `test/${template}`, template, text, parameters, scalars, maxOutputChars };
}

/** The error `promise` rejects with; throws if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

/** The parameters of a shared KUDO package (`dir`) with their params.yaml defaults, as a job carries them. */
export function packageDefaults(dir: string): RenderJob['parameters'] {
  const params =
    (
      parse(readFileSync(join(dir, 'params.yaml'), 'utf8')) as {
        parameters?: { name: string; default?: unknown; type?: string }[];
      }
    ).parameters ?? [];
  return params.map((p) => ({
    name: p.name,
    type: p.type === 'array' || p.type === 'map' ? p.type : 'string',
    raw:
      p.default === undefined
        ? ''
        : typeof p.default === 'string'
          ? p.default
          : JSON.stringify(p.default),
  }));
}

/**
 * Render workers of these tests run at the test's own priority, not production's niceness 10:
 * the suite runs integration files beside the unit files, and a niced worker got under 1 % of
 * a core there — its CPU deadline then never came before the wall-clock limit. What these
 * tests prove (deadlines, limits, routing, fairness) does not depend on the niceness.
 */
export const TEST_PRIORITY = { niceness: 0 } as const;
