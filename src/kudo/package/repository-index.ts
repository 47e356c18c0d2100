/**
 * A repository's `index.yaml`: operator name → versions, each with the URLs of its .tgz.
 * Versions are kept newest first (appVersion, then operatorVersion, by semver; versions that
 * do not parse last), so the first entry matching the filters is the one to install.
 */
import type { Maintainer } from '../api/index.ts';
import { PackageResolveError } from './errors.ts';
import { compareLenientVersions, parseLenientVersion } from './version.ts';
import { NodeReader, parsePackageYaml } from './yaml-nodes.ts';

export interface IndexEntry {
  readonly name: string;
  readonly operatorVersion: string;
  readonly appVersion?: string;
  readonly description?: string;
  readonly maintainers?: readonly Maintainer[];
  readonly urls: readonly string[];
  readonly digest?: string;
  readonly removed?: boolean;
}

export interface RepositoryIndex {
  readonly apiVersion: string;
  /** Operator name → versions, newest first. */
  readonly entries: ReadonlyMap<string, readonly IndexEntry[]>;
  readonly generated?: string;
}

function compareOptionalVersions(a: string | undefined, b: string | undefined): number {
  const va = parseLenientVersion(a ?? '');
  const vb = parseLenientVersion(b ?? '');
  if (va && vb) return compareLenientVersions(va, vb);
  if (va) return 1;
  if (vb) return -1;
  return 0;
}

/** Newest first: appVersion, then operatorVersion; unparsable versions last. Stable. */
export function sortNewestFirst(entries: readonly IndexEntry[]): IndexEntry[] {
  return [...entries].sort(
    (a, b) =>
      compareOptionalVersions(b.appVersion, a.appVersion) ||
      compareOptionalVersions(b.operatorVersion, a.operatorVersion),
  );
}

type MutableEntry = { -readonly [K in keyof IndexEntry]: IndexEntry[K] };

function entry(r: NodeReader, node: unknown, path: string, fallbackName: string): IndexEntry {
  const out: MutableEntry = { name: fallbackName, operatorVersion: '', urls: [] };
  for (const [key, value, field] of r.map(node, path) ?? []) {
    if (key === 'name' || key === 'operatorVersion') out[key] = r.string(value, field) ?? '';
    else if (key === 'appVersion' || key === 'description' || key === 'digest') {
      const text = r.string(value, field);
      if (text) out[key] = text;
    } else if (key === 'urls') out.urls = r.stringList(value, field) ?? [];
    else if (key === 'removed') out.removed = r.bool(value, field) ?? false;
    else if (key === 'maintainers') {
      out.maintainers = (r.seq(value, field) ?? []).map((m, i) => {
        const person: Maintainer = {};
        for (const [k, v, f] of r.map(m, `${field}[${i}]`) ?? []) {
          if (k === 'name' || k === 'email') person[k] = r.string(v, f) ?? '';
        }
        return person;
      });
    }
  }
  return out;
}

/** Parses and validates an index; `source` (its URL) names it in errors. */
export function parseRepositoryIndex(text: string, source: string): RepositoryIndex {
  const entries = new Map<string, IndexEntry[]>();
  let apiVersion = '';
  let generated: string | undefined;
  try {
    const r = new NodeReader(parsePackageYaml(text));
    for (const [key, value, field] of r.map(r.root, '') ?? []) {
      if (key === 'apiVersion') apiVersion = r.string(value, field) ?? '';
      else if (key === 'generated') generated = r.string(value, field);
      else if (key === 'entries') {
        for (const [name, list, listField] of r.map(value, field) ?? []) {
          const versions = (r.seq(list, listField) ?? []).map((e, i) =>
            entry(r, e, `${listField}[${i}]`, name),
          );
          entries.set(name, versions);
        }
      }
    }
  } catch (err) {
    throw new PackageResolveError(`unmarshalling index file ${source}: ${(err as Error).message}`, {
      source,
      cause: err,
    });
  }
  if (apiVersion === '') {
    throw new PackageResolveError(`validating index file ${source}: no API version defined`, {
      source,
    });
  }
  for (const versions of entries.values()) {
    for (const v of versions) {
      if (v.operatorVersion === '') {
        throw new PackageResolveError(
          `validating index file ${source}: package ${v.name} is missing an operator version`,
          { source },
        );
      }
    }
  }
  for (const [name, versions] of entries) entries.set(name, sortNewestFirst(versions));
  return { apiVersion, entries, ...(generated !== undefined ? { generated } : {}) };
}

/**
 * The newest version of `name` matching the filters (empty = any), or KUDO's
 * `no operator found for: X` / `no operator version found for X-<ver>`.
 */
export function findFirstMatch(
  index: RepositoryIndex,
  name: string,
  appVersion = '',
  operatorVersion = '',
): IndexEntry {
  const versions = index.entries.get(name) ?? [];
  if (versions.length === 0) {
    throw new PackageResolveError(`no operator found for: ${name}`, { source: name });
  }
  const found = versions.find(
    (v) =>
      (appVersion === '' || v.appVersion === appVersion) &&
      (operatorVersion === '' || v.operatorVersion === operatorVersion),
  );
  if (found) return found;
  throw new PackageResolveError(
    operatorVersion === ''
      ? `no operator version found for ${name}`
      : `no operator version found for ${name}-${operatorVersion}`,
    { source: name },
  );
}

export interface IndexSummary {
  readonly name: string;
  readonly operatorVersion: string;
  readonly appVersion: string;
}

/** `search`: operators whose name contains `text`, newest version only unless `allVersions`; by name. */
export function searchIndex(
  index: RepositoryIndex,
  text: string,
  allVersions = false,
): IndexSummary[] {
  const out: IndexSummary[] = [];
  for (const [name, versions] of index.entries) {
    if (!name.includes(text) || versions.length === 0) continue;
    for (const v of allVersions ? versions : versions.slice(0, 1)) {
      out.push({ name, operatorVersion: v.operatorVersion, appVersion: v.appVersion ?? '' });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
