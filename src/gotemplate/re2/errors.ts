// regexp/syntax's parse errors: a code and the offending part of the expression, printed
// exactly as Go prints them.

export type Re2ErrorCode =
  | 'invalid character class'
  | 'invalid character class range'
  | 'invalid escape sequence'
  | 'invalid named capture'
  | 'invalid or unsupported Perl syntax'
  | 'invalid nested repetition operator'
  | 'invalid repeat count'
  | 'invalid UTF-8'
  | 'missing closing ]'
  | 'missing closing )'
  | 'missing argument to repetition operator'
  | 'trailing backslash at end of expression'
  | 'unexpected )'
  | 'expression nests too deeply'
  | 'expression too large';

export class Re2Error extends Error {
  constructor(
    readonly code: Re2ErrorCode,
    readonly expr: string,
  ) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}
