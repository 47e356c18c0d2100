/**
 * Reads a package from its file tree: operator.yaml and params.yaml at the root (both
 * mandatory), templates = every file below templates/ (subfolders too) whose name contains
 * `.yaml`, keyed by the path below templates/. Other files are ignored: they may be child
 * packages. `apiVersion` may be omitted; if present it must be kudo.dev/v1beta1.
 */
import { PackageReadError } from './errors.ts';
import type { FileTree } from './files.ts';
import {
  OPERATOR_FILE,
  PACKAGE_API_VERSION,
  PARAMS_FILE,
  TEMPLATES_FOLDER,
  type PackageDefinition,
} from './model.ts';
import { decodeOperatorFile } from './operator-file.ts';
import { decodeParamsFile } from './params-file.ts';

function apiVersionProblem(found: string): string | undefined {
  return found === PACKAGE_API_VERSION
    ? undefined
    : `expecting supported API version ${PACKAGE_API_VERSION} but got ${found}`;
}

function templatesOf(tree: FileTree): Record<string, string> {
  const prefix = `${TEMPLATES_FOLDER}/`;
  const keys = [...tree.keys()]
    .filter((p) => p.startsWith(prefix) && (p.split('/').pop() ?? '').includes('.yaml'))
    .sort();
  return Object.fromEntries(
    keys.map((p) => [p.slice(prefix.length), (tree.get(p) ?? Buffer.alloc(0)).toString('utf8')]),
  );
}

/**
 * The package in `tree`; `source` names it in messages (a folder path, `x.tgz`, a URL).
 * Throws {@link PackageReadError} for missing files, YAML that does not decode, or a wrong
 * apiVersion. Does not run the read-time task checks: see {@link readTimeProblems}.
 */
/**
 * One of the package's two files, decoded and its apiVersion checked, with KUDO's texts:
 * params.yaml's problems read "failed to unmarshal parameters file: params.yaml: …" (the name
 * inside the package: the command's message names the package), operator.yaml's
 * "failed to unmarshal operator file: …" or just the apiVersion problem.
 */
function decodeChecked<T extends { readonly apiVersion: string }>(
  bytes: Buffer,
  source: string,
  what: 'operator' | 'parameters',
  decode: (text: string) => T,
): T {
  const prefix =
    what === 'parameters' ? `failed to unmarshal parameters file: ${PARAMS_FILE}: ` : '';
  let decoded: T;
  try {
    decoded = decode(bytes.toString('utf8'));
  } catch (err) {
    const message = (err as Error).message;
    throw new PackageReadError(
      what === 'parameters'
        ? `${prefix}${message}`
        : `failed to unmarshal operator file: ${message}`,
      { source, cause: err, stage: 'files' },
    );
  }
  const problem = apiVersionProblem(decoded.apiVersion);
  if (problem) throw new PackageReadError(`${prefix}${problem}`, { source, stage: 'files' });
  return decoded;
}

export function parsePackage(tree: FileTree, source: string): PackageDefinition {
  const operatorBytes = tree.get(OPERATOR_FILE);
  if (operatorBytes === undefined) {
    throw new PackageReadError(`operator package missing ${OPERATOR_FILE} in ${source}`, {
      source,
      stage: 'files',
    });
  }
  const paramsBytes = tree.get(PARAMS_FILE);
  if (paramsBytes === undefined) {
    throw new PackageReadError(`operator package missing ${PARAMS_FILE} in ${source}`, {
      source,
      stage: 'files',
    });
  }

  const operator = decodeChecked(operatorBytes, source, 'operator', decodeOperatorFile);
  const params = decodeChecked(paramsBytes, source, 'parameters', decodeParamsFile);
  return { source, operator, params, templates: templatesOf(tree) };
}
