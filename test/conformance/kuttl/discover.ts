import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** A Kubernetes object as written in a test file: at least apiVersion, kind and a name. */
export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface KuttlStep {
  readonly index: number;
  /** Files applied in name order (neither assert nor errors). */
  readonly apply: readonly string[];
  /** `NN-assert.yaml`: objects that must eventually match. */
  readonly assert?: string;
  /** `NN-errors.yaml`: objects that must not exist. */
  readonly errors?: string;
}

export interface KuttlCase {
  readonly name: string;
  readonly dir: string;
  readonly steps: readonly KuttlStep[];
}

const STEP_FILE = /^(\d+)-(.+)\.ya?ml$/;

/**
 * Reads one kuttl test folder: files `NN-*.yaml` grouped by step NN (numeric order), each
 * step's plain files applied in name order, `NN-assert.yaml` and `NN-errors.yaml` checked.
 */
export function loadCase(dir: string): KuttlCase {
  const steps = new Map<number, { apply: string[]; assert?: string; errors?: string }>();
  for (const file of readdirSync(dir).sort()) {
    const m = STEP_FILE.exec(file);
    if (!m) continue;
    const index = Number(m[1]);
    const step = steps.get(index) ?? { apply: [] };
    steps.set(index, step);
    const path = join(dir, file);
    if (m[2] === 'assert') step.assert = path;
    else if (m[2] === 'errors') step.errors = path;
    else step.apply.push(path);
  }
  return {
    name: basename(dir),
    dir,
    steps: [...steps.entries()].sort(([a], [b]) => a - b).map(([index, s]) => ({ index, ...s })),
  };
}

/** Every case folder below `root`, sorted by name. */
export function loadCases(root: string): KuttlCase[] {
  return readdirSync(root)
    .filter((entry) => statSync(join(root, entry)).isDirectory())
    .sort()
    .map((entry) => loadCase(join(root, entry)));
}

/** The objects of a multi-document YAML file; empty documents are skipped. */
export function readManifests(path: string): ManifestObject[] {
  const objects: ManifestObject[] = [];
  for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJSON();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`${path}: a document is not an object`);
    }
    const obj = value as Partial<ManifestObject>;
    if (!obj.apiVersion || !obj.kind || !obj.metadata) {
      throw new Error(`${path}: every document needs apiVersion, kind and metadata`);
    }
    objects.push(obj as ManifestObject);
  }
  return objects;
}
