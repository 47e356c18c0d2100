// Go text/template + sprig, as KUDO renders operator templates. Nothing here knows about
// Kubernetes or KUDO objects: callers pass the variable map.

import { Template } from './template.js';
import type { TemplateOptions } from './template.js';

export { Template } from './template.js';
export type { TemplateOptions } from './template.js';
export { TemplateError } from './errors.js';
export type { TemplateErrorKind } from './errors.js';
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
} from './values.js';
export type { FuncDef, GoType, GoValue, IntKind } from './values.js';
export { kudoFuncs, kudoFuncNames } from './funcs/kudo.js';

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
