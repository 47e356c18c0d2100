/**
 * Template checks of `package verify` that need no rendering: template syntax, the
 * parameters and top-level fields templates use, templates tasks need or nobody uses, and —
 * after rendering, where KUDO has them — `kind: Namespace` outside the namespace manifest and
 * the manifest itself. Texts and order are KUDO's.
 */
import { taskTemplates } from '../package/index.ts';
import type { Findings } from './findings.ts';
import type { VerifySubject } from './subject.ts';
import { templateUsage, type TemplateUsage } from './template-usage.ts';

/** The top-level template variables besides `.Params` and `.Pipes`. */
export const IMPLICIT_FIELDS: ReadonlySet<string> = new Set([
  'Name',
  'Namespace',
  'OperatorName',
  'OperatorVersion',
  'AppVersion',
  'PlanName',
  'PhaseName',
  'StepName',
]);

const NAMESPACE_KIND = /kind:\s*Namespace\b/;

/** Parses every template once; the render check reuses the result. */
export function templateUsages(s: VerifySubject): Map<string, TemplateUsage> {
  return new Map(Object.entries(s.templates).map(([key, text]) => [key, templateUsage(key, text)]));
}

export function checkTemplates(
  s: VerifySubject,
  usages: ReadonlyMap<string, TemplateUsage>,
  out: Findings,
): void {
  const defined = new Set(s.parameters.map((p) => p.name));
  const used = new Set<string>();

  for (const [key, usage] of usages) {
    const at = s.field.template(key);
    if (usage.error !== undefined) {
      out.error(
        `template file ${JSON.stringify(key)} reports the following error: ${usage.error}`,
        at,
      );
      continue;
    }
    for (const name of usage.params) {
      if (!defined.has(name))
        out.error(`parameter ${JSON.stringify(name)} in template ${key} is not defined`, at);
    }
    for (const field of usage.implicits) {
      if (!IMPLICIT_FIELDS.has(field)) {
        out.error(
          `template ${key} defines an invalid implicit parameter ${JSON.stringify(field)}`,
          at,
        );
      }
    }
    for (const name of usage.paramsUsed) used.add(name);
  }

  s.tasks.forEach((task, i) => {
    const parameter = task.spec?.parameter;
    if (task.kind !== 'Toggle' || !parameter) return;
    used.add(parameter);
    if (!defined.has(parameter)) {
      out.error(
        `parameter ${JSON.stringify(parameter)} in ToggleTask ${task.name} is not defined`,
        s.field.task(i, 'spec.parameter'),
      );
    }
  });
  s.parameters.forEach((p, i) => {
    // A parameter may only trigger a plan without being used in templates.
    if (!used.has(p.name) && !p.trigger) {
      out.warning(
        `parameter ${JSON.stringify(p.name)} defined but not used.`,
        s.field.parameter(i),
      );
    }
  });

  const required = new Set<string>();
  s.tasks.forEach((task, i) => {
    for (const name of taskTemplates(task)) {
      required.add(name);
      if (!Object.hasOwn(s.templates, name)) {
        out.error(
          `template ${JSON.stringify(name)} required by ${task.name} but is not defined`,
          s.field.task(i),
        );
      }
    }
  });
  for (const key of Object.keys(s.templates)) {
    if (key === s.namespaceManifest) continue;
    if (!required.has(key)) {
      out.warning(
        `template ${JSON.stringify(key)} is not referenced from any task`,
        s.field.template(key),
      );
    }
  }
}

/**
 * KUDO's last check (its NamespaceVerifier, after rendering): `kind: Namespace` outside the
 * namespace manifest, then the namespace manifest itself — missing, or (given its rendered
 * text) not exactly one Namespace.
 */
export function checkNamespaces(
  s: VerifySubject,
  out: Findings,
  checkManifest: (name: string) => void,
): void {
  for (const key of Object.keys(s.templates)) {
    if (key === s.namespaceManifest) continue;
    if (NAMESPACE_KIND.test(s.templates[key] ?? '')) {
      out.error(
        `template ${JSON.stringify(key)} contains 'kind: Namespace' not allowed unless specified as 'NamespaceManifest'`,
        s.field.template(key),
      );
    }
  }
  if (!s.namespaceManifest) return;
  if (!Object.hasOwn(s.templates, s.namespaceManifest)) {
    out.error(
      `NamespaceManifest ${JSON.stringify(s.namespaceManifest)} not found in /templates folder`,
      s.field.namespaceManifest,
    );
    return;
  }
  checkManifest(s.namespaceManifest);
}
