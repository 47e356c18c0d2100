/**
 * Renders an OperatorVersion's templates into objects: Go text/template with KUDO's functions
 * and `missingkey=error`, then multi-document YAML. Parsed templates are cached per
 * OperatorVersion revision (bounded), so a plan pass does not re-parse them.
 */
import { parseAllDocuments } from 'yaml';
import { compileTemplate, TemplateError, type Template } from '../../gotemplate/index.ts';
import type { ApplyObject } from '../../kube/apply.ts';
import type { OperatorVersion } from '../api/types.ts';
import type { TemplateVariables } from './variables.ts';

/** A template that does not render or does not parse as Kubernetes YAML: never retried. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
  constructor(
    readonly template: string,
    readonly line: number | undefined,
    detail: string,
  ) {
    super(
      `template ${template}${line !== undefined ? ` line ${line}` : ''}: ${detail}; fix the template in the OperatorVersion (or the parameter it uses) and schedule the plan again`,
    );
  }
}

/** A task names a template the OperatorVersion does not have. */
export class MissingTemplateError extends Error {
  override readonly name = 'MissingTemplateError';
  constructor(
    readonly template: string,
    readonly operatorVersion: string,
  ) {
    super(
      `template ${template} does not exist in OperatorVersion ${operatorVersion}; add it to spec.templates or remove it from the task`,
    );
  }
}

export class TemplateCache {
  private readonly entries = new Map<string, Template>();
  constructor(private readonly max: number = 512) {}

  get(ov: OperatorVersion, name: string): Template {
    const text = ov.spec?.templates?.[name];
    const label = `${ov.metadata.namespace ?? ''}/${ov.metadata.name ?? ''}`;
    if (text === undefined) throw new MissingTemplateError(name, label);
    const key = `${ov.metadata.uid ?? label}@${ov.metadata.resourceVersion ?? ''}/${name}`;
    let found = this.entries.get(key);
    if (found) {
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    try {
      found = compileTemplate(name, text, { funcs: 'kudo', missingKey: 'error' });
    } catch (err) {
      if (err instanceof TemplateError) throw new RenderError(name, err.line, err.message);
      throw err;
    }
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, found);
    return found;
  }
}

/** Renders one template and parses its documents; empty documents are skipped. */
export function renderObjects(
  cache: TemplateCache,
  ov: OperatorVersion,
  name: string,
  vars: TemplateVariables,
): ApplyObject[] {
  const template = cache.get(ov, name);
  let text: string;
  try {
    text = template.execute(vars);
  } catch (err) {
    if (err instanceof TemplateError) throw new RenderError(name, err.line, err.message);
    throw err;
  }
  return parseObjects(name, text);
}

export function parseObjects(name: string, text: string): ApplyObject[] {
  const out: ApplyObject[] = [];
  // YAML 1.1, as Go's sigs.k8s.io/yaml reads it (KUDO): 0777 is octal, yes/no are booleans.
  for (const doc of parseAllDocuments(text, { version: '1.1' })) {
    const first = doc.errors[0];
    if (first) {
      const line = first.linePos?.[0]?.line;
      throw new RenderError(
        name,
        line,
        `rendered output is not valid YAML: ${first.message.split('\n')[0] ?? ''}`,
      );
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new RenderError(name, undefined, 'a document is not a Kubernetes object (a YAML map)');
    }
    const obj = value as ApplyObject;
    if (!obj.apiVersion || !obj.kind || !obj.metadata?.name) {
      throw new RenderError(
        name,
        undefined,
        `a document lacks apiVersion, kind or metadata.name (${obj.kind ?? 'no kind'} ${obj.metadata?.name ?? 'no name'})`,
      );
    }
    out.push(obj);
  }
  return out;
}
