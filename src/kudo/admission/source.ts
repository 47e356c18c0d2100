/**
 * Where admission reads OperatorVersions from. The shared cache answers almost always; a
 * miss (an OperatorVersion created a moment ago, or a cache still syncing) costs one live
 * GET, never a list, and admission never writes.
 *
 * See examples/api/kudo.ts.
 */
import { ApiError, type KubeClient } from '../../kube/index.ts';
import {
  OPERATOR_VERSION_GVK,
  type OperatorVersionSource,
  KUDO_GROUP,
  KUDO_VERSION,
  type Operator,
  type OperatorVersion,
} from '../api/index.ts';

// The contracts live in kudo/api; re-exported where admission's users have always found them.
export { OPERATOR_VERSION_GVK, type OperatorVersionSource };

export class OperatorVersionLookupError extends Error {
  override readonly name = 'OperatorVersionLookupError';
  constructor(
    readonly namespace: string,
    readonly operatorVersion: string,
    cause: unknown,
  ) {
    super(
      `could not read OperatorVersion ${namespace}/${operatorVersion}: ${cause instanceof Error ? cause.message : String(cause)}; the change was not admitted, try again`,
      { cause },
    );
  }
}

export interface LiveOperatorVersionSourceOptions {
  readonly client: KubeClient;
  /** Bound on one GET; keep it well under the webhook timeout. */
  readonly timeoutMs: number;
}

/** False for text holding a lone UTF-16 surrogate (`\p{Cs}` matches only unpaired ones). */
export function isWellFormed(text: string): boolean {
  return !/\p{Cs}/u.test(text);
}

/** One GET of a namespaced kudo.dev object; a 404 reads as undefined, other errors throw. */
async function getNamespaced<T>(
  options: LiveOperatorVersionSourceOptions,
  ref: {
    readonly plural: 'operatorversions' | 'operators';
    readonly namespace: string;
    readonly name: string;
  },
  signal: AbortSignal | undefined,
): Promise<T | undefined> {
  const { plural, namespace, name } = ref;
  // No object is named with a lone UTF-16 surrogate (and encodeURIComponent throws on one):
  // it does not exist, which the caller turns into a reasoned denial.
  if (!isWellFormed(namespace) || !isWellFormed(name)) return undefined;
  const path = `/apis/${KUDO_GROUP}/${KUDO_VERSION}/namespaces/${encodeURIComponent(namespace)}/${plural}/${encodeURIComponent(name)}`;
  try {
    return await options.client.request<T>({
      path,
      timeoutMs: options.timeoutMs,
      signal,
    });
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return undefined;
    throw err;
  }
}

/** One GET per lookup. */
export class LiveOperatorVersionSource implements OperatorVersionSource {
  constructor(private readonly options: LiveOperatorVersionSourceOptions) {}

  async get(
    namespace: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<OperatorVersion | undefined> {
    try {
      return await getNamespaced<OperatorVersion>(
        this.options,
        { plural: 'operatorversions', namespace, name },
        signal,
      );
    } catch (err) {
      throw new OperatorVersionLookupError(namespace, name, err);
    }
  }
}

/** The part of the runtime cache this source needs. */
export interface OperatorVersionCache {
  get(key: string): OperatorVersion | undefined;
}

export interface CachedOperatorVersionSourceOptions {
  readonly cache: OperatorVersionCache;
  /** Asked on a miss. */
  readonly live: OperatorVersionSource;
}

/** The shared cache first, one live GET on a miss. */
export class CachedOperatorVersionSource implements OperatorVersionSource {
  constructor(private readonly options: CachedOperatorVersionSourceOptions) {}

  async get(
    namespace: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<OperatorVersion | undefined> {
    return this.peek(namespace, name) ?? this.options.live.get(namespace, name, signal);
  }

  peek(namespace: string, name: string): OperatorVersion | undefined {
    return this.options.cache.get(`${namespace}/${name}`);
  }
}

/** One GET of an Operator per lookup (the OperatorVersion webhook reads its namespaceManifest). */
export class LiveOperatorSource {
  constructor(private readonly options: LiveOperatorVersionSourceOptions) {}

  get(namespace: string, name: string, signal?: AbortSignal): Promise<Operator | undefined> {
    return getNamespaced<Operator>(this.options, { plural: 'operators', namespace, name }, signal);
  }
}
