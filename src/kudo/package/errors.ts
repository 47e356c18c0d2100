/**
 * Errors of the package library. Messages are KUDO's text where KUDO had one (the CLI prints
 * them as `Error: <message>`); the fields carry the context a caller needs without parsing it.
 */

export interface PackageErrorOptions {
  /** Where the package came from: a folder, a .tgz path, a URL or a repository name. */
  readonly source?: string | undefined;
  /** Every problem when there were several (the message joins them). */
  readonly problems?: readonly string[] | undefined;
  readonly cause?: unknown;
  /**
   * Which step of reading failed, for KUDO's message prefixes: `files` (finding and decoding
   * operator.yaml/params.yaml) or `resources` (turning them into API objects).
   */
  readonly stage?: 'files' | 'resources' | undefined;
}

/** Base class: anything the package library refuses. */
export class PackageError extends Error {
  override readonly name: string = 'PackageError';
  readonly source: string | undefined;
  readonly problems: readonly string[];
  readonly stage: 'files' | 'resources' | undefined;

  constructor(message: string, options: PackageErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.source = options.source;
    this.problems = options.problems ?? [message];
    this.stage = options.stage;
  }
}

/** The files of a package are missing, unreadable, not YAML, or fail the read-time checks. */
export class PackageReadError extends PackageError {
  override readonly name = 'PackageReadError';
}

/** A .tgz is corrupt, not gzip'ed tar, or exceeds the size limits. */
export class ArchiveError extends PackageError {
  override readonly name = 'ArchiveError';
}

/** A package argument could not be found or fetched (folder, URL, repository). */
export class PackageResolveError extends PackageError {
  override readonly name = 'PackageResolveError';
}

/** A KudoOperator dependency could not be resolved, or the dependencies form a cycle. */
export class DependencyError extends PackageError {
  override readonly name = 'DependencyError';
}

/** `-p NAME=VALUE` / `-P file` input that cannot become Instance parameters. */
export class ParameterInputError extends PackageError {
  override readonly name = 'ParameterInputError';
}

/** The repositories file or an index file cannot be read or changed as asked. */
export class RepositoryError extends PackageError {
  override readonly name = 'RepositoryError';
}
