/**
 * The render check of `package verify`: every template renders with placeholder values
 * (`.Name` = "Name" etc., parameters = their defaults, `.Pipes` from all plans with an empty
 * instance name) and its output is Kubernetes YAML (KudoOperator parameter files excepted);
 * the namespace manifest renders to exactly one Namespace. Template execution is synchronous:
 * callers on a latency-sensitive path (admission) should run this bounded elsewhere.
 */
import { parseAllDocuments } from 'yaml';
import { compileTemplate, TemplateError } from '../../gotemplate/index.ts';
import type { Instance, OperatorVersion, ParameterValueType } from '../api/index.ts';
import { MAX_TEMPLATE_OUTPUT_CHARS, templateParams } from '../render/index.ts';
import { planPipes, type DuplicatePipeKeyError } from '../package/index.ts';
import type { Findings } from './findings.ts';
import type { VerifySubject } from './subject.ts';
import type { TemplateUsage } from './template-usage.ts';

/** The variables verify renders every template with (routing.ts sizes them too). */
export const PLACEHOLDERS = {
  Name: 'Name',
  Namespace: 'Namespace',
  OperatorName: 'OperatorName',
  OperatorVersion: 'OperatorVersion',
  AppVersion: 'AppVersion',
  PlanName: 'PlanName',
  PhaseName: 'PhaseName',
  StepName: 'StepName',
} as const;

const NO_INSTANCE: Instance = { metadata: {} };

/** `.Params` as the engine builds them from defaults; a default that does not decode stays text. */
function placeholderParams(s: VerifySubject): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const p of s.parameters) {
    const ov: OperatorVersion = {
      metadata: {},
      spec: {
        parameters: [
          {
            name: p.name,
            default: p.default,
            'value-type': p.type as ParameterValueType,
          },
        ],
      },
    };
    try {
      out[p.name] = templateParams(NO_INSTANCE, ov)[p.name];
    } catch {
      out[p.name] = p.default ?? ''; // reported by the default-value check
    }
  }
  return out;
}

function allPipes(s: VerifySubject, out: Findings): Record<string, string> {
  const pipes = new Map<string, string>();
  for (const [name, plan] of Object.entries(s.plans)) {
    const report = (err: DuplicatePipeKeyError): void => out.error(err.message, s.field.plan(name));
    for (const [key, value] of planPipes(name, plan, s.tasks, {
      instance: '',
      onDuplicate: report,
    }))
      pipes.set(key, value);
  }
  return Object.fromEntries(pipes);
}

/** Why `text` is not Kubernetes YAML (one object per document; empty documents skipped). */
export function kubernetesYamlProblem(text: string): string | undefined {
  for (const doc of parseAllDocuments(text, { version: '1.1' })) {
    const first = doc.errors[0];
    if (first) return first.message.split('\n')[0] ?? first.message;
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) return 'a document is not a map';
    const obj = value as { apiVersion?: unknown; kind?: unknown };
    if (typeof obj.kind !== 'string' || obj.kind === '') return "Object 'Kind' is missing";
    if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '')
      return "Object 'apiVersion' is missing";
  }
  return undefined;
}

/** The objects of Kubernetes YAML that kubernetesYamlProblem found nothing wrong with. */
function renderedObjects(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text, { version: '1.1' })
    .map((d) => d.toJS() as unknown)
    .filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null);
}

/** The rendered namespace manifest is exactly one Namespace (KUDO's NamespaceVerifier). */
export function checkNamespaceManifest(
  name: string,
  text: string,
  s: VerifySubject,
  out: Findings,
): void {
  const q = JSON.stringify(name);
  const docs = parseAllDocuments(text, { version: '1.1' });
  if (docs.some((d) => d.errors.length > 0)) {
    // KUDO's text ends with a space.
    out.error(`Unable to marshal NamespaceManifest ${q} `, s.field.namespaceManifest);
    return;
  }
  const objects = docs.map((d) => d.toJS() as unknown).filter((v) => v !== null && v !== undefined);
  if (objects.length === 0) {
    out.error(
      `NamespaceManifest ${q} found but does not contain a manifest`,
      s.field.namespaceManifest,
    );
  } else if (objects.length > 1) {
    out.error(
      `NamespaceManifest ${q} found but contains ${objects.length} manifests which is greater than 1`,
      s.field.namespaceManifest,
    );
  } else if ((objects[0] as { kind?: unknown }).kind !== 'Namespace') {
    out.error(
      `NamespaceManifest ${q} found but manifest is not kind: Namespace`,
      s.field.namespaceManifest,
    );
  }
}

/** Receives a template's objects as rendered with placeholder values. */
export type RenderedObjects = (
  template: string,
  objects: readonly Record<string, unknown>[],
) => void;

/** Renders every template; resolves the rendered text of each (the namespace manifest's too). */
export function checkRendering(
  s: VerifySubject,
  usages: ReadonlyMap<string, TemplateUsage>,
  out: Findings,
  onRendered?: RenderedObjects,
): Map<string, string> {
  const texts = new Map<string, string>();
  const vars = { ...PLACEHOLDERS, Params: placeholderParams(s), Pipes: allPipes(s, out) };
  const parameterFiles = new Set(
    s.tasks
      .filter((t) => t.kind === 'KudoOperator' && t.spec?.parameterFile)
      .map((t) => t.spec!.parameterFile!),
  );
  for (const [key, text] of Object.entries(s.templates)) {
    if (usages.get(key)?.error !== undefined) continue; // reported as a syntax error
    let rendered: string;
    try {
      // The plan's own output limit: without one a template's output (or a string it builds)
      // can grow past what a render worker may hold outside its heap.
      rendered = compileTemplate(key, text, { funcs: 'kudo', missingKey: 'error' }).execute(vars, {
        maxOutputLength: MAX_TEMPLATE_OUTPUT_CHARS,
      });
    } catch (err) {
      // Anything execution throws is this template's problem, not a reason to stop verifying.
      const message =
        err instanceof TemplateError || err instanceof Error ? err.message : String(err);
      out.error(`error rendering template: ${message}`, s.field.template(key));
      continue;
    }
    texts.set(key, rendered);
    // Checked after every template rendered, as KUDO orders its findings (checkNamespaces).
    if (key === s.namespaceManifest) continue;
    if (parameterFiles.has(key)) continue;
    const problem = kubernetesYamlProblem(rendered);
    if (problem)
      out.error(`parsing rendered YAML from ${key} failed: ${problem}`, s.field.template(key));
    else if (onRendered) onRendered(key, renderedObjects(rendered));
  }
  return texts;
}
