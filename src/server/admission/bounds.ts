/**
 * Bounds on what a person reads from a webhook: kubectl prints every cause and warning in
 * full, and a request built to be large (thousands of parameters, a name of 100 KB) would
 * otherwise come back as a wall of text. A bounded answer lists the first few items, clips
 * each one, and says how many more there were.
 */
import type { AdmissionStatus, StatusCause } from './review.ts';

export const ADMISSION_BOUNDS = {
  /** Causes of one denial; the rest are counted in a last cause. */
  causes: 20,
  /** Characters of one cause's field (and of one problem listed in a message). */
  causeChars: 300,
  /**
   * Characters of one cause's message: room for the longest message Planwright writes itself
   * (a refusal naming instance, namespace, plan, phase and step, and the command to abort),
   * while a value echoed from a hostile request is still cut.
   */
  causeMessageChars: 1200,
  /** Characters of a denial's message. */
  messageChars: 4000,
  /** Warnings of one answer; the rest are counted in a last warning. */
  warnings: 12,
  /** Characters of one warning. */
  warningChars: 500,
} as const;

/** `text`, or its first `max` characters and how many were left out; never splits a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

export function boundWarnings(warnings: readonly string[]): readonly string[] {
  const max = ADMISSION_BOUNDS.warnings;
  const shown = warnings.slice(0, max).map((w) => clip(w, ADMISSION_BOUNDS.warningChars));
  if (warnings.length > max) shown.push(`… and ${warnings.length - max} more warnings`);
  return shown;
}

function boundCause(cause: StatusCause): StatusCause {
  return {
    ...cause,
    field: cause.field === undefined ? undefined : clip(cause.field, ADMISSION_BOUNDS.causeChars),
    message: clip(cause.message, ADMISSION_BOUNDS.causeMessageChars),
  };
}

export function boundStatus(status: AdmissionStatus): AdmissionStatus {
  const causes = status.details?.causes;
  const max = ADMISSION_BOUNDS.causes;
  const bounded: AdmissionStatus = {
    ...status,
    message: clip(status.message, ADMISSION_BOUNDS.messageChars),
  };
  if (!causes) return bounded;
  const shown = causes.slice(0, max).map(boundCause);
  if (causes.length > max) {
    shown.push({
      message: `… and ${causes.length - max} more problems of the same request`,
      reason: causes[max]?.reason ?? 'FieldValueInvalid',
    });
  }
  return { ...bounded, details: { ...status.details, causes: shown } };
}
