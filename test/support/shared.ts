// The one place that names what the tests take from outside the repository: KUDO's packages and
// declarative test cases, and the KUDO CRDs of reference, in the folder `shared` beside the
// clone (../shared; CI checks the repository out next to it). Resolved from the repository
// root, never from a fixed path; PLANWRIGHT_SHARED_DIR names another folder.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repositoryRoot } from '../../src/localcluster/paths.ts';

export const SHARED_DIR = process.env['PLANWRIGHT_SHARED_DIR']
  ? resolve(process.env['PLANWRIGHT_SHARED_DIR'])
  : resolve(repositoryRoot(), '..', 'shared');
/** KUDO's operator packages (zookeeper, kafka, …) as KUDO's repository holds them. */
export const KUDO_PACKAGES_DIR = join(SHARED_DIR, 'kudo-packages');
/** KUDO's own kuttl cases (integration, integration-cli, e2e) and their manifests. */
export const KUDO_CASES_DIR = join(SHARED_DIR, 'kudo-cases');
/** KUDO 0.19's CRDs (field shapes only). */
export const KUDO_REFERENCE_CRDS_DIR = join(SHARED_DIR, 'kudo-reference', 'crds');

const NEEDED = [KUDO_PACKAGES_DIR, KUDO_CASES_DIR, KUDO_REFERENCE_CRDS_DIR];

/** One line saying what is missing and where, or undefined when the shared data is there. */
export function sharedDataProblem(): string | undefined {
  const missing = NEEDED.filter((dir) => !existsSync(dir));
  if (missing.length === 0) return undefined;
  const what = existsSync(SHARED_DIR)
    ? `it lacks ${missing.map((d) => d.slice(SHARED_DIR.length + 1)).join(', ')}`
    : 'there is no such folder';
  return (
    `the tests need KUDO's packages, test cases and CRDs in ${SHARED_DIR} (the folder ` +
    `"shared" beside the clone), but ${what}: put it there or name it in PLANWRIGHT_SHARED_DIR`
  );
}
