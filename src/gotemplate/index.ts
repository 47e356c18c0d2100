// Go text/template + sprig, as KUDO renders operator templates. Nothing here knows about
// Kubernetes or KUDO objects: callers pass the variable map.

import { Template } from './template.ts';
import type { TemplateOptions } from './template.ts';

export { Template } from './template.ts';
export type { ExecuteOptions, TemplateOptions } from './template.ts';
export { TemplateError } from './errors.ts';
export type { Tree } from './parser.ts';
export type {
  ActionNode,
  BranchNode,
  ChainNode,
  CommandNode,
  FieldNode,
  ListNode,
  Node,
  PipeNode,
  TemplateNode,
  VariableNode,
} from './ast.ts';
export type { TemplateErrorKind } from './errors.ts';
export {
  FuncError,
  GoFunc,
  GoInt,
  GoMap,
  GoObject,
  GoSlice,
  fromJS,
  int,
  typeOf,
} from './values.ts';
export type { FuncDef, GoType, GoValue, IntKind } from './values.ts';
export { kudoFuncs, kudoFuncNames } from './funcs/kudo.ts';
export { compareSemver, parseSemver, type SemVersion } from './funcs/sprig-semver.ts';
/** gopkg.in/yaml.v2's Marshal for JSON-shaped data (KUDO's dependencies hash, `-o yaml`). */
export { goYamlMarshal, type GoYamlValue } from './goyaml/marshal.ts';
export { goYamlKeyLess } from './goyaml/keys.ts';
/** Go's time.ParseDuration (nanoseconds): the duration syntax of Kubernetes components' flags. */
export { parseDuration as parseGoDuration, ParseDurationError } from './gotime/duration.ts';

/** Parse and execute in one go; throws TemplateError with Go's message. */
export function renderTemplate(
  name: string,
  text: string,
  data: unknown,
  options: TemplateOptions = {},
): string {
  return new Template(name, text, options).execute(data);
}

/** Parse once, execute many. */
export function compileTemplate(
  name: string,
  text: string,
  options: TemplateOptions = {},
): Template {
  return new Template(name, text, options);
}
