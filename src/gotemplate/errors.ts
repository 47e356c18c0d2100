// Errors carry Go's exact wording (callers and the differential tests compare text) plus
// the pieces a person or a caller needs without parsing the message.

export type TemplateErrorKind = 'parse' | 'exec';

export class TemplateError extends Error {
  constructor(
    message: string,
    readonly kind: TemplateErrorKind,
    /** The template being parsed or executed. */
    readonly templateName: string,
    /** 1-based line, when Go's message has one. */
    readonly line?: number,
    /** 0-based byte column (Go's convention), for execution errors. */
    readonly column?: number,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}
