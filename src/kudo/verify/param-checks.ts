/**
 * `package verify --param-checks display,hint,desc,type,hasgroup,groups,all`: optional style
 * warnings about parameters and groups (KUDO's texts).
 */
import type { Findings } from './findings.ts';
import type { VerifySubject } from './subject.ts';

export const PARAM_CHECKS = [
  'display',
  'hint',
  'desc',
  'type',
  'hasgroup',
  'groups',
  'all',
] as const;
export type ParamCheck = (typeof PARAM_CHECKS)[number];

/** The checks named by the flag values, or an Error naming an unknown one. */
export function parseParamChecks(values: readonly string[]): Set<ParamCheck> {
  const out = new Set<ParamCheck>();
  for (const value of values) {
    if (!(PARAM_CHECKS as readonly string[]).includes(value)) {
      throw new Error(
        `unknown parameter check: ${value}, must be one of [${PARAM_CHECKS.join(' ')}]`,
      );
    }
    if (value === 'all') for (const c of PARAM_CHECKS) out.add(c);
    else out.add(value as ParamCheck);
  }
  return out;
}

/** Upper case, or not a letter (Go's unicode.IsUpper || !IsLetter on the first character). */
function startsUpper(text: string): boolean {
  const first = [...text][0] ?? '';
  return first === first.toUpperCase() || first.toLowerCase() === first.toUpperCase();
}

function displayNameProblem(name: string | undefined): string | undefined {
  if (!name) return 'has no displayName';
  if (name.endsWith(':')) return "has a displayName ending with ':'";
  if (!startsUpper(name)) return 'has a displayName that does not start with a capital letter';
  return undefined;
}

function descriptionProblem(text: string | undefined): string | undefined {
  if (!text) return 'has no description';
  if (!'.!?)'.includes(text.slice(-1))) return "has a description not ending with one of '.!?)'";
  if (!startsUpper(text)) return 'has a description that does not start with a capital letter';
  return undefined;
}

function hintProblem(hint: string | undefined): string | undefined {
  if (!hint) return 'has no hint';
  if (!hint.endsWith('.')) return "has a hint not ending with a '.'";
  return undefined;
}

export function checkParamStyle(
  s: VerifySubject,
  checks: ReadonlySet<ParamCheck>,
  out: Findings,
): void {
  s.parameters.forEach((p, i) => {
    const warn = (problem: string | undefined): void => {
      if (problem)
        out.warning(`parameter ${JSON.stringify(p.name)} ${problem}`, s.field.parameter(i));
    };
    if (checks.has('desc')) warn(descriptionProblem(p.description));
    if (checks.has('hint')) warn(hintProblem(p.hint));
    if (checks.has('display')) warn(displayNameProblem(p.displayName));
    if (checks.has('hasgroup') && !p.group) warn('has no group');
    if (checks.has('type') && !p.type) warn('has no explicit type assigned');
  });
  if (checks.has('groups')) {
    s.groups.forEach((g, i) => {
      for (const problem of [
        displayNameProblem(g.displayName),
        descriptionProblem(g.description),
      ]) {
        if (problem)
          out.warning(`parameter group ${JSON.stringify(g.name)} ${problem}`, s.field.group(i));
      }
    });
  }
}
