/** Verifier results: KUDO's error and warning texts, each with the field it is about. */

export type Severity = 'error' | 'warning';

export interface Finding {
  readonly severity: Severity;
  /** KUDO's text where KUDO had one. */
  readonly message: string;
  /**
   * Where the problem is: `spec.parameters[2].default` for an OperatorVersion,
   * `params.yaml: parameters[2].default` or `templates/x.yaml` for a package folder.
   */
  readonly field?: string | undefined;
}

/** What `package verify -o yaml|json` prints, plus the structured findings. */
export interface VerifyResult {
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  readonly valid: boolean;
  readonly findings: readonly Finding[];
}

export class Findings {
  private readonly list: Finding[] = [];

  error(message: string, field?: string): void {
    this.list.push({ severity: 'error', message, field });
  }

  warning(message: string, field?: string): void {
    this.list.push({ severity: 'warning', message, field });
  }

  result(): VerifyResult {
    const errors = this.list.filter((f) => f.severity === 'error').map((f) => f.message);
    const warnings = this.list.filter((f) => f.severity === 'warning').map((f) => f.message);
    return { errors, warnings, valid: errors.length === 0, findings: [...this.list] };
  }
}
