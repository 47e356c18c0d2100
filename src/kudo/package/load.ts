/**
 * Reads a KUDO package folder (operator.yaml, params.yaml, templates/) into the Operator and
 * OperatorVersion objects KUDO's CLI would create, so packages run unchanged. Scalars keep
 * their source text (appVersion: 1.10 stays "1.10", default: 3 becomes "3"); list or map
 * defaults become YAML text, the form Instance parameter values take.
 *
 * @example
 * const pkg = await loadPackage('../shared/kudo-packages/zookeeper');
 * await apply(pkg.operator); await apply(pkg.operatorVersion);
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument, stringify, visit } from 'yaml';
import {
  KUDO_API_VERSION,
  type Operator,
  type OperatorVersion,
  type Parameter,
  type Plan,
  type Task,
} from '../api/types.ts';

export class PackageError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`KUDO package ${path}: ${detail}`);
    this.name = 'PackageError';
  }
}

export interface KudoPackage {
  readonly name: string;
  readonly operator: Operator;
  readonly operatorVersion: OperatorVersion;
}

export interface LoadOptions {
  /** Namespace to put on the objects; omitted when undefined. */
  readonly namespace?: string;
}

type Yaml = Record<string, unknown>;

/** Parses YAML, turning every number scalar back into its source text. */
function parseYaml(text: string, path: string): Yaml {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new PackageError(path, `invalid YAML: ${doc.errors[0]?.message ?? ''}`);
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'number' && node.range) {
        node.value = text.slice(node.range[0], node.range[1]);
      }
    },
  });
  const value: unknown = doc.toJS();
  if (!isRecord(value)) throw new PackageError(path, 'must be a YAML map');
  return value;
}

function isRecord(value: unknown): value is Yaml {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return value.toString();
  }
  return JSON.stringify(value) ?? '';
}

function str(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  return typeof value === 'object' ? JSON.stringify(value) : scalarText(value);
}

function asText(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value === 'object') return stringify(value).trimEnd();
  return scalarText(value);
}

function parameter(raw: unknown, path: string): Parameter {
  if (!isRecord(raw) || typeof raw['name'] !== 'string') {
    throw new PackageError(path, `every parameter needs a name; got ${JSON.stringify(raw)}`);
  }
  const out: Parameter = { name: raw['name'] };
  for (const key of ['displayName', 'description', 'trigger', 'value-type'] as const) {
    const value = str(raw[key]);
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  }
  const def = asText(raw['default']);
  if (def !== undefined && def !== null) out.default = def;
  if (raw['required'] !== undefined)
    out.required = raw['required'] === true || raw['required'] === 'true';
  if (raw['immutable'] !== undefined)
    out.immutable = raw['immutable'] === true || raw['immutable'] === 'true';
  if (Array.isArray(raw['enum'])) out.enum = raw['enum'].map((v) => asText(v) ?? '');
  return out;
}

async function readTemplates(dir: string): Promise<Record<string, string>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return {};
  }
  const templates: Record<string, string> = {};
  for (const name of names.sort()) {
    templates[name] = await readFile(join(dir, name), 'utf8');
  }
  return templates;
}

/** The OperatorVersion name KUDO's CLI gives: `<operator>-<appVersion>-<version>` (appVersion optional). */
export function operatorVersionName(
  operator: string,
  version: string,
  appVersion?: string,
): string {
  return appVersion ? `${operator}-${appVersion}-${version}` : `${operator}-${version}`;
}

export async function loadPackage(dir: string, options: LoadOptions = {}): Promise<KudoPackage> {
  const operatorFile = join(dir, 'operator.yaml');
  const op = parseYaml(
    await readFile(operatorFile, 'utf8').catch(() => {
      throw new PackageError(dir, 'operator.yaml is missing');
    }),
    operatorFile,
  );
  const paramsFile = join(dir, 'params.yaml');
  const paramsText = await readFile(paramsFile, 'utf8').catch(() => undefined);
  const params = paramsText === undefined ? {} : parseYaml(paramsText, paramsFile);
  const name = str(op['name']);
  const version = str(op['operatorVersion']) ?? str(op['version']);
  if (!name) throw new PackageError(operatorFile, 'name is required');
  if (!version) throw new PackageError(operatorFile, 'operatorVersion is required');
  const appVersion = str(op['appVersion']);
  const namespace = options.namespace !== undefined ? { namespace: options.namespace } : {};
  const rawParams = Array.isArray(params['parameters']) ? params['parameters'] : [];

  const operator: Operator = {
    apiVersion: KUDO_API_VERSION,
    kind: 'Operator',
    metadata: { name, ...namespace },
    spec: {
      ...(str(op['description']) ? { description: str(op['description']) } : {}),
      ...(str(op['kudoVersion']) ? { kudoVersion: str(op['kudoVersion']) } : {}),
      ...(str(op['kubernetesVersion']) ? { kubernetesVersion: str(op['kubernetesVersion']) } : {}),
      ...(str(op['url']) ? { url: str(op['url']) } : {}),
      maintainers: (Array.isArray(op['maintainers']) ? op['maintainers'] : [])
        .filter(isRecord)
        .map((m) => ({ name: str(m['name']) ?? '', email: str(m['email']) ?? '' })),
    },
  };
  const operatorVersion: OperatorVersion = {
    apiVersion: KUDO_API_VERSION,
    kind: 'OperatorVersion',
    metadata: { name: operatorVersionName(name, version, appVersion), ...namespace },
    spec: {
      operator: { name, kind: 'Operator' },
      version,
      ...(appVersion ? { appVersion } : {}),
      ...(str(op['connectionString']) ? { connectionString: str(op['connectionString']) } : {}),
      templates: await readTemplates(join(dir, 'templates')),
      parameters: rawParams.map((p) => parameter(p, paramsFile)),
      tasks: (Array.isArray(op['tasks']) ? op['tasks'] : []) as Task[],
      plans: (isRecord(op['plans']) ? op['plans'] : {}) as Record<string, Plan>,
    },
  };
  return { name, operator, operatorVersion };
}
