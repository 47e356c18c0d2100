/**
 * Reads a KUDO package folder into the Operator and OperatorVersion objects KUDO's CLI would
 * create, so packages run unchanged: a convenience over the reader for tests and benches.
 *
 * See examples/api/kudo.ts.
 */
import type { Instance, Operator, OperatorVersion } from '../api/index.ts';
import { packageResources } from './convert.ts';
import { DEFAULT_PACKAGE_LIMITS, readFolderTree } from './files.ts';
import { loadPackageDefinition } from './read-checks.ts';
import { resolve } from 'node:path';

export interface KudoPackage {
  readonly name: string;
  readonly operator: Operator;
  readonly operatorVersion: OperatorVersion;
  /** The Instance install would create (`<name>-instance`), without parameters. */
  readonly instance: Instance;
}

export interface LoadOptions {
  /** Namespace to put on the objects; omitted when undefined. */
  readonly namespace?: string;
}

export async function loadPackage(dir: string, options: LoadOptions = {}): Promise<KudoPackage> {
  const abs = resolve(dir);
  const definition = loadPackageDefinition(await readFolderTree(abs, DEFAULT_PACKAGE_LIMITS), abs);
  const resources = packageResources(definition, { namespace: options.namespace });
  return { name: definition.operator.name, ...resources };
}
