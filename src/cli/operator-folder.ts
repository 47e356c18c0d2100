/**
 * The operator folder the generator verbs work on, found as KUDO's `OperatorPath` found it: the
 * current folder if it holds operator.yaml, else the one folder directly below it that does;
 * and reading/writing its two files the way KUDO's generators wrote them (sigs.k8s.io/yaml:
 * keys sorted, sequences not indented below their key).
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { CliError } from './errors.ts';

/** The folders directly below `cwd` that hold an operator.yaml. */
export function operatorFoldersBelow(cwd: string): string[] {
  return readdirSync(cwd, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(cwd, e.name, 'operator.yaml')))
    .map((e) => join(cwd, e.name))
    .sort();
}

export function findOperatorFolder(cwd: string): string {
  if (existsSync(join(cwd, 'operator.yaml'))) return cwd;
  const found = operatorFoldersBelow(cwd);
  if (found.length < 1) throw new CliError('no operator folder discovered');
  if (found.length > 1) throw new CliError('multiple operator folders discovered');
  return found[0] ?? cwd;
}

export type YamlMap = Record<string, unknown>;

export async function readYamlMap(file: string): Promise<YamlMap> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid YAML: ${(err as Error).message}; fix it first`, {
      cause: err,
    });
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError(`${file} must be a YAML mapping; fix it first`);
  }
  return value as YamlMap;
}

export function kudoYaml(value: unknown): string {
  return stringify(value, { sortMapEntries: true, indentSeq: false, lineWidth: 0 });
}

export async function writeYamlFile(file: string, value: unknown): Promise<void> {
  await writeFile(file, kudoYaml(value));
}
