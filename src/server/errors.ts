/** Errors of the webhook server, each carrying what a person needs to act on it. */

/** A required setting is missing or out of range; raised by constructors, before any I/O. */
export class ServerConfigError extends Error {
  override readonly name = 'ServerConfigError';
  constructor(
    message: string,
    readonly setting: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

/**
 * An admission request the server cannot take: answered with `status` and a JSON body, never
 * passed to a handler.
 */
export class AdmissionInputError extends Error {
  override readonly name = 'AdmissionInputError';
  constructor(
    message: string,
    /** HTTP status of the answer: 400, 413 or 415. */
    readonly status: 400 | 413 | 415,
  ) {
    super(message);
  }
}

/** A handler did not answer within the server's handler deadline. */
export class HandlerTimeoutError extends Error {
  override readonly name = 'HandlerTimeoutError';
  constructor(
    readonly webhook: string,
    readonly timeoutMs: number,
  ) {
    super(`webhook handler "${webhook}" did not answer within ${timeoutMs} ms`);
  }
}

/** Certificate material could not be loaded, generated or stored. */
export class TlsError extends Error {
  override readonly name = 'TlsError';
  constructor(
    message: string,
    /** Where the material lives: a directory, or `namespace/name` of a Secret. */
    readonly source: string,
    options?: { cause?: unknown },
  ) {
    super(`${source}: ${message}`, options);
  }
}

/** The CA bundle could not be written into a webhook configuration. */
export class CaInjectionError extends Error {
  override readonly name = 'CaInjectionError';
  constructor(
    message: string,
    readonly configuration: string,
    options?: { cause?: unknown },
  ) {
    super(`${configuration}: ${message}`, options);
  }
}
