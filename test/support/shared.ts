// The data every engineer and CI run has beside the clone, at ../shared: KUDO's packages and
// declarative test cases. Resolved from the repository root, never from a fixed path.
import { join, resolve } from 'node:path';
import { repositoryRoot } from '../../src/localcluster/paths.ts';

export const SHARED_DIR = resolve(repositoryRoot(), '..', 'shared');
export const KUDO_PACKAGES_DIR = join(SHARED_DIR, 'kudo-packages');
export const KUDO_CASES_DIR = join(SHARED_DIR, 'kudo-cases');
