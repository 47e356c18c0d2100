/**
 * The KUDO package library: reading packages (folder, .tgz, URL, repository) into a typed
 * model and into Operator / OperatorVersion / Instance objects, KudoOperator dependency
 * resolution, command-line parameter input, and repository indexes.
 */
export {
  ArchiveError,
  DependencyError,
  PackageError,
  PackageReadError,
  PackageResolveError,
  ParameterInputError,
  RepositoryError,
  type PackageErrorOptions,
} from './errors.ts';
export {
  DEFAULT_PACKAGE_LIMITS,
  isTreeFolder,
  readFolderTree,
  subTree,
  treePath,
  type FileTree,
  type PackageLimits,
} from './files.ts';
export { readTarball } from './tarball.ts';
export {
  packageArchive,
  packageArchiveName,
  packArchive,
  readPackageFolder,
  type PackageArchive,
} from './archive.ts';
export {
  OPERATOR_FILE,
  PACKAGE_API_VERSION,
  PARAMS_FILE,
  TEMPLATES_FOLDER,
  type OperatorFile,
  type PackageDefinition,
  type PackageParameter,
  type ParameterGroup,
  type ParamsFile,
} from './model.ts';
export { parsePackage } from './reader.ts';
export { loadPackageDefinition, readTimeProblems, taskTemplates } from './read-checks.ts';
export {
  defaultInstanceName,
  OPERATOR_LABEL,
  operatorVersionName,
  packageResources,
  toApiParameter,
  type PackageResources,
  type ResourceOptions,
} from './convert.ts';
export { stringifyParameterValue } from './values.ts';
export {
  parameterFileValues,
  parseParameterFlag,
  readParameterInput,
  type FileReader,
  type ParameterInput,
} from './parameter-input.ts';
export {
  compareLenientVersions,
  compareVersionStrings,
  parseLenientVersion,
  type LenientVersion,
} from './version.ts';
export { DEFAULT_HTTP_TIMEOUT_MS, DEFAULT_USER_AGENT, httpGet, type HttpOptions } from './http.ts';
export {
  findFirstMatch,
  parseRepositoryIndex,
  searchIndex,
  sortNewestFirst,
  type IndexEntry,
  type IndexSummary,
  type RepositoryIndex,
} from './repository-index.ts';
export {
  DEFAULT_REPOSITORY,
  fetchUrl,
  RepositoryClient,
  type FetchedPackage,
  type RepositoryConfig,
} from './repository.ts';
export {
  packageResolver,
  readLocalPackage,
  type PackageOrigin,
  type PackageResolver,
  type ResolvedPackage,
  type ResolverOptions,
} from './resolver.ts';
export { resolveDependencies, type ResolvedDependencies } from './dependencies.ts';
export { loadPackage, type KudoPackage, type LoadOptions } from './load.ts';
export {
  DuplicatePipeKeyError,
  pipeArtifactName,
  pipePodName,
  planPipes,
  sanitizePipeName,
  type PipeCoordinates,
} from './pipes.ts';
export {
  defaultRepositories,
  kudoHome,
  REPOSITORIES_VERSION,
  RepositoryStore,
  type RepositoriesFile,
} from './repositories.ts';
export {
  DEFAULT_INDEX_URL,
  indexDirectory,
  serializeRepositoryIndex,
  type IndexDirectoryOptions,
  type IndexDirectoryResult,
} from './repository-index-writer.ts';
