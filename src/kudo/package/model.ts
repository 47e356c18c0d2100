/**
 * The typed package model: operator.yaml, params.yaml and the templates, with KUDO's
 * defaults applied (`required` true, `immutable` false) and parameter defaults already in
 * their OperatorVersion string form.
 */
import type { Maintainer, Plan, Task } from '../api/index.ts';

export const PACKAGE_API_VERSION = 'kudo.dev/v1beta1';
export const OPERATOR_FILE = 'operator.yaml';
export const PARAMS_FILE = 'params.yaml';
export const TEMPLATES_FOLDER = 'templates';

export interface OperatorFile {
  readonly apiVersion: string;
  readonly name: string;
  readonly description?: string;
  readonly operatorVersion: string;
  readonly appVersion?: string;
  readonly kudoVersion?: string;
  readonly kubernetesVersion?: string;
  readonly maintainers: readonly Maintainer[];
  readonly url?: string;
  readonly tasks: readonly Task[];
  readonly plans: Readonly<Record<string, Plan>>;
  /** Template rendered as the Namespace by `install --create-namespace`. */
  readonly namespaceManifest?: string;
}

export interface PackageParameter {
  readonly name: string;
  readonly displayName?: string;
  readonly description?: string;
  /** Defaults to true when params.yaml does not say. */
  readonly required: boolean;
  /** The default as an Instance value would be written (array/map as YAML text); absent = none. */
  readonly default?: string;
  readonly trigger?: string;
  /** params.yaml `type` (the OperatorVersion's `value-type`); absent = string. */
  readonly type?: string;
  readonly immutable: boolean;
  /** Allowed values in string form; `[]` is an enum without values (a verifier error). */
  readonly enum?: readonly string[];
  /** UI only: not part of the OperatorVersion. */
  readonly group?: string;
  readonly advanced?: boolean;
  readonly hint?: string;
}

/** UI only: parameter groups of params.yaml. */
export interface ParameterGroup {
  readonly name: string;
  readonly displayName?: string;
  readonly description?: string;
  readonly prio?: number;
}

export interface ParamsFile {
  readonly apiVersion: string;
  readonly parameters: readonly PackageParameter[];
  readonly groups: readonly ParameterGroup[];
}

/** A package read from its files. */
export interface PackageDefinition {
  /** Where it was read from (folder path, .tgz path, URL, `repo/name`), for messages. */
  readonly source: string;
  readonly operator: OperatorFile;
  readonly params: ParamsFile;
  /** Template key (path below templates/) → text, sorted by key. */
  readonly templates: Readonly<Record<string, string>>;
}
