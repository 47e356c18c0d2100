/**
 * What the OperatorVersion webhook answers from `package verify`'s findings, by policy:
 *
 * - `warn` (the default): KUDO's manager stores every OperatorVersion its schema accepts and
 *   runs what it can; what the verifier finds fails, if ever, when a plan runs (a template
 *   that does not render ends the plan FATAL_ERROR naming it; a parameter triggering an
 *   undefined plan is refused when an Instance changes it). Planwright admits the same
 *   objects and returns each finding as an admission warning, which kubectl prints.
 * - `strict` (`planwright start --strict-package-admission`): any verify error refuses the
 *   object with one 422 cause per problem — the author's check, at `kubectl apply` time.
 *
 * Warnings and causes are bounded again by the server (see server/admission/bounds.ts).
 */
import { allow, denyInvalid, type AdmissionResult, type StatusCause } from '../../server/index.ts';
import type { Finding, VerifyResult } from '../verify/index.ts';

export type PackagePolicy = 'warn' | 'strict';

/** kubectl prints every cause and warning on its own line: enough to act on, not a flood. */
const MAX_CAUSES = 20;
const MAX_WARNINGS = 10;

function where(f: Finding): string {
  return f.field ? `${f.field}: ` : '';
}

/** The warnings of a verdict: a summary line when there are errors, then the findings. */
function warningLines(ovLabel: string, result: VerifyResult, admittedErrors: boolean): string[] {
  const errors = result.findings.filter((f) => f.severity === 'error');
  const warnings = result.findings.filter((f) => f.severity === 'warning');
  const lines: string[] = [];
  if (admittedErrors && errors.length > 0) {
    lines.push(
      `OperatorVersion ${ovLabel} has ${errors.length} package verify ${errors.length === 1 ? 'error' : 'errors'}; admitted as KUDO admits it: what ${errors.length === 1 ? 'it affects' : 'they affect'} fails when a plan runs (kubectl kudo package verify <folder> reports the same).`,
    );
    for (const f of errors)
      lines.push(`OperatorVersion ${ovLabel}: error: ${where(f)}${f.message}`);
  }
  for (const f of warnings) lines.push(`OperatorVersion ${ovLabel}: ${where(f)}${f.message}`);
  if (lines.length <= MAX_WARNINGS) return lines;
  return [
    ...lines.slice(0, MAX_WARNINGS),
    `… and ${lines.length - MAX_WARNINGS} more findings (kubectl kudo package verify lists them all)`,
  ];
}

export function verifyVerdict(
  ovLabel: string,
  result: VerifyResult,
  policy: PackagePolicy,
): AdmissionResult {
  const errors = result.findings.filter((f) => f.severity === 'error');
  if (errors.length === 0 || policy === 'warn') {
    return allow({ warnings: warningLines(ovLabel, result, true) });
  }
  const causes: StatusCause[] = errors.slice(0, MAX_CAUSES).map((f) => ({
    field: f.field ?? 'spec',
    message: f.message,
    reason: 'FieldValueInvalid',
  }));
  const more = errors.length > MAX_CAUSES ? ` (the first ${MAX_CAUSES} of ${errors.length})` : '';
  return denyInvalid(
    `OperatorVersion ${ovLabel} is not a valid package (strict package admission): ${errors.length} ${errors.length === 1 ? 'problem' : 'problems'}${more}: ${errors
      .slice(0, MAX_CAUSES)
      .map((f) => `${where(f)}${f.message}`)
      .join(
        '; ',
      )}. Fix the package (kubectl kudo package verify <folder> reports the same) and apply it again.`,
    causes,
    { warnings: warningLines(ovLabel, result, false) },
  );
}
