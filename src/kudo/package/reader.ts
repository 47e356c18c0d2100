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

function location(source: string, file: string): string {
  return `${source.replace(/\/+$/, '')}/${file}`;
}

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
 * One of the package's two files, decoded and its apiVersion checked, with KUDO's texts: one
 * that does not decode is "failed to unmarshal <what> file: <path>: …", a wrong apiVersion
 * "<apiVersionPrefix><path>: expecting supported API version …".
 */
function decodeChecked<T extends { readonly apiVersion: string }>(
  bytes: Buffer,
  source: string,
  file: string,
  what: 'operator' | 'parameters',
  how: { readonly decode: (text: string) => T; readonly apiVersionPrefix: string },
): T {
  let decoded: T;
  try {
    decoded = how.decode(bytes.toString('utf8'));
  } catch (err) {
    throw new PackageReadError(
      `failed to unmarshal ${what} file: ${location(source, file)}: ${(err as Error).message}`,
      { source, cause: err },
    );
  }
  const problem = apiVersionProblem(decoded.apiVersion);
  if (problem) {
    throw new PackageReadError(`${how.apiVersionPrefix}${location(source, file)}: ${problem}`, {
      source,
    });
  }
  return decoded;
}

export function parsePackage(tree: FileTree, source: string): PackageDefinition {
  const operatorBytes = tree.get(OPERATOR_FILE);
  if (operatorBytes === undefined) {
    throw new PackageReadError(`operator package missing ${OPERATOR_FILE} in ${source}`, {
      source,
    });
  }
  const paramsBytes = tree.get(PARAMS_FILE);
  if (paramsBytes === undefined) {
    throw new PackageReadError(`operator package missing ${PARAMS_FILE} in ${source}`, { source });
  }

  const operator = decodeChecked(operatorBytes, source, OPERATOR_FILE, 'operator', {
    decode: decodeOperatorFile,
    apiVersionPrefix: '',
  });
  const params = decodeChecked(paramsBytes, source, PARAMS_FILE, 'parameters', {
    decode: decodeParamsFile,
    apiVersionPrefix: 'failed to unmarshal parameters file: ',
  });
  return { source, operator, params, templates: templatesOf(tree) };
}
