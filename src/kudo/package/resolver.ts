/**
 * Resolving a package argument (install, upgrade, package list) and KudoOperator
 * dependencies, in KUDO's order:
 * 1. local: the argument contains a path separator, exists, and is a folder or a `.tgz`
 *    regular file (relative paths resolve against the resolver's folder: the current
 *    directory for the command line, the parent package's folder for a dependency, or the
 *    parent's tarball, rooted at `/`, when the parent came from a .tgz, URL or repository);
 * 2. a URL (`http(s)://`, or `file:`) of a .tgz;
 * 3. a name in the repository, filtered by appVersion/operatorVersion (empty = any).
 * Each result carries the resolver for its own dependencies, so a tarball's relative
 * dependencies resolve inside it and never reach the host filesystem.
 */
import { readFile, stat } from 'node:fs/promises';
import { posix, resolve as resolvePath, sep } from 'node:path';
import { PackageResolveError } from './errors.ts';
import {
  DEFAULT_PACKAGE_LIMITS,
  isTreeFolder,
  readFolderTree,
  subTree,
  treePath,
  type FileTree,
  type PackageLimits,
} from './files.ts';
import type { HttpOptions } from './http.ts';
import type { PackageDefinition } from './model.ts';
import { packageResources, type PackageResources } from './convert.ts';
import { loadPackageDefinition } from './read-checks.ts';
import {
  DEFAULT_REPOSITORY,
  fetchUrl,
  RepositoryClient,
  type RepositoryConfig,
} from './repository.ts';
import { readTarball } from './tarball.ts';

export type PackageOrigin =
  | { readonly kind: 'folder'; readonly path: string }
  | { readonly kind: 'tarball'; readonly path: string }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'repository'; readonly repository: string; readonly url: string }
  /** Resolved by another resolver (for example from OperatorVersions in a cluster). */
  | { readonly kind: 'other'; readonly description: string };

export interface ResolvedPackage {
  /** Fresh Operator / OperatorVersion / Instance (no namespace); the caller may change them. */
  readonly resources: PackageResources;
  /** The package files, when it was read from files. */
  readonly definition?: PackageDefinition | undefined;
  readonly origin: PackageOrigin;
  /** Resolves this package's own KudoOperator dependencies (relative to it). */
  readonly dependencies: PackageResolver;
}

export interface PackageResolver {
  /** `appVersion` / `operatorVersion` filter repository packages; empty or absent = any. */
  resolve(
    name: string,
    appVersion?: string,
    operatorVersion?: string,
    signal?: AbortSignal,
  ): Promise<ResolvedPackage>;
}

export interface ResolverOptions {
  /** Folder relative paths resolve against; default the process's current directory. */
  readonly cwd?: string | undefined;
  /**
   * Repository for bare names (`--repo`, else the context of repositories.yaml); a function
   * is called only when a name really goes to the repository. Default: the community repo.
   */
  readonly repository?: RepositoryConfig | (() => Promise<RepositoryConfig>) | undefined;
  readonly http?: HttpOptions | undefined;
  readonly limits?: PackageLimits | undefined;
  /**
   * Accept an operator.yaml without `operatorVersion` (`package list` shows such a package,
   * as KUDO's did; install and upgrade need the version).
   */
  readonly allowMissingOperatorVersion?: boolean | undefined;
}

interface Shared {
  readonly repository: () => Promise<RepositoryConfig>;
  readonly http: HttpOptions;
  readonly limits: PackageLimits;
  readonly allowMissingOperatorVersion: boolean;
}

/** Where local paths live: the host filesystem below a folder, or inside a tarball. */
type Scope =
  | { readonly kind: 'host'; readonly cwd: string }
  | {
      readonly kind: 'tree';
      readonly tree: FileTree;
      readonly cwd: string;
      readonly label: string;
    };

const URL_SCHEMES = new Set(['http:', 'https:', 'file:']);

function asUrl(name: string): URL | undefined {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(name)) return undefined;
  try {
    return new URL(name);
  } catch {
    return undefined;
  }
}

function looksLikePath(name: string): boolean {
  return name.includes('/') || name.includes(sep);
}

class ScopedResolver implements PackageResolver {
  constructor(
    private readonly scope: Scope,
    private readonly shared: Shared,
  ) {}

  async resolve(
    name: string,
    appVersion = '',
    operatorVersion = '',
    signal?: AbortSignal,
  ): Promise<ResolvedPackage> {
    if (name === '') throw new PackageResolveError('the package name is empty', { source: name });
    const url = asUrl(name);
    if (looksLikePath(name) && !url) {
      const local =
        this.scope.kind === 'host' ? await this.hostLocal(name) : await this.treeLocal(name);
      if (local) return local;
    }
    if (url) {
      if (!URL_SCHEMES.has(url.protocol)) {
        throw new PackageResolveError(
          `unsupported URL scheme ${url.protocol} in ${name}: use http(s)://… or file:… for a .tgz, a local folder or .tgz path, or a repository name`,
          { source: name },
        );
      }
      let bytes: Buffer;
      try {
        bytes = await fetchUrl(name, this.shared.http, signal);
      } catch (err) {
        if (!(err instanceof PackageResolveError)) throw err;
        throw new PackageResolveError(
          `${err.message}; check the URL, or install from a local folder or .tgz instead`,
          { source: name, cause: err },
        );
      }
      return this.fromArchive(bytes, name, { kind: 'url', url: name });
    }
    if (looksLikePath(name)) throw this.notLocal(name);
    const config = await this.shared.repository();
    const client = new RepositoryClient(config, this.shared.http);
    const fetched = await client.fetchPackage(name, appVersion, operatorVersion, signal);
    return this.fromArchive(fetched.bytes, fetched.url, {
      kind: 'repository',
      repository: config.name,
      url: fetched.url,
    });
  }

  private notLocal(name: string): PackageResolveError {
    const where =
      this.scope.kind === 'host'
        ? resolvePath(this.scope.cwd, name)
        : `${this.scope.label}:/${treePath(posix.join(this.scope.cwd, name))}`;
    return new PackageResolveError(
      `${where} is neither a package folder nor a .tgz file (or does not exist)`,
      { source: name },
    );
  }

  private async hostLocal(name: string): Promise<ResolvedPackage | undefined> {
    if (this.scope.kind !== 'host') return undefined;
    const abs = resolvePath(this.scope.cwd, name);
    const info = await stat(abs).catch(() => undefined);
    if (info?.isDirectory()) {
      const tree = await readFolderTree(abs, this.shared.limits);
      return this.result(
        loadPackageDefinition(tree, abs),
        { kind: 'folder', path: abs },
        {
          kind: 'host',
          cwd: abs,
        },
      );
    }
    if (info?.isFile() && abs.endsWith('.tgz')) {
      if (info.size > this.shared.limits.maxArchiveBytes) {
        throw new PackageResolveError(
          `${abs}: ${info.size} bytes, more than the limit of ${this.shared.limits.maxArchiveBytes} for a package archive`,
          { source: abs },
        );
      }
      return this.fromArchive(await readFile(abs), abs, { kind: 'tarball', path: abs });
    }
    return undefined;
  }

  private async treeLocal(name: string): Promise<ResolvedPackage | undefined> {
    if (this.scope.kind !== 'tree') return undefined;
    const { tree, label } = this.scope;
    const path = treePath(posix.join(this.scope.cwd, name));
    if (path !== '' && isTreeFolder(tree, path)) {
      const source = `${label}:/${path}`;
      return this.result(
        loadPackageDefinition(subTree(tree, path), source),
        { kind: 'tarball', path: source },
        { kind: 'tree', tree, cwd: path, label },
      );
    }
    const bytes = path.endsWith('.tgz') ? tree.get(path) : undefined;
    if (bytes) {
      const source = `${label}:/${path}`;
      return this.fromArchive(bytes, source, { kind: 'tarball', path: source });
    }
    return undefined;
  }

  private async fromArchive(
    bytes: Uint8Array,
    label: string,
    origin: PackageOrigin,
  ): Promise<ResolvedPackage> {
    const tree = await readTarball(bytes, label, this.shared.limits);
    return this.result(loadPackageDefinition(tree, label), origin, {
      kind: 'tree',
      tree,
      cwd: '',
      label,
    });
  }

  private result(
    definition: PackageDefinition,
    origin: PackageOrigin,
    scope: Scope,
  ): ResolvedPackage {
    return {
      resources: packageResources(definition, {
        allowMissingOperatorVersion: this.shared.allowMissingOperatorVersion,
      }),
      definition,
      origin,
      dependencies: new ScopedResolver(scope, this.shared),
    };
  }
}

/** The resolver for command-line package arguments. */
export function packageResolver(options: ResolverOptions = {}): PackageResolver {
  const repo = options.repository;
  const shared: Shared = {
    repository:
      typeof repo === 'function' ? repo : () => Promise.resolve(repo ?? DEFAULT_REPOSITORY),
    http: options.http ?? {},
    limits: options.limits ?? DEFAULT_PACKAGE_LIMITS,
    allowMissingOperatorVersion: options.allowMissingOperatorVersion ?? false,
  };
  return new ScopedResolver({ kind: 'host', cwd: options.cwd ?? process.cwd() }, shared);
}

/** Reads a local package folder or .tgz (no URL, no repository): `package verify`, tests. */
export async function readLocalPackage(
  path: string,
  limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
): Promise<ResolvedPackage> {
  const resolver = packageResolver({
    limits,
    repository: () => Promise.reject(new PackageResolveError(`${path} is not a local package`)),
  });
  return resolver.resolve(looksLikePath(path) ? path : `./${path}`);
}
