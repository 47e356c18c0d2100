/**
 * HTTP GET of package archives and repository indexes, bounded: an overall timeout (short by
 * default, so an offline machine fails fast instead of hanging), a size limit on the body,
 * and the caller's AbortSignal. Node's fetch (undici) does the work.
 */
import { deadlineSignal } from '../../kube/index.ts';
import { PackageResolveError } from './errors.ts';

/** KUDO's repositories saw `KUDO/<version>`; Planwright speaks the same protocol. */
export const DEFAULT_USER_AGENT = 'KUDO/0.19.0 (Planwright)';

export interface HttpOptions {
  readonly userAgent?: string | undefined;
  /** Whole request, connect to last byte; default 10 s. */
  readonly timeoutMs?: number | undefined;
  /** Largest body accepted; default 32 MiB. */
  readonly maxBytes?: number | undefined;
}

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

function causeText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code && cause.message) return `${cause.code}: ${cause.message}`;
  return cause?.message ?? (err as Error).message;
}

async function readBody(res: Response, url: string, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  const tooBig = (): PackageResolveError =>
    new PackageResolveError(
      `${url} sent more than ${maxBytes} bytes, more than a package may hold`,
      {
        source: url,
      },
    );
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw tooBig();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (res.body) {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > maxBytes) throw tooBig();
      chunks.push(Buffer.from(chunk));
    }
  }
  return Buffer.concat(chunks);
}

/** The body of a 200 answer to GET `url`; anything else is a {@link PackageResolveError}. */
export async function httpGet(
  url: string,
  options: HttpOptions = {},
  signal?: AbortSignal,
): Promise<Buffer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const deadline = deadlineSignal(timeoutMs, signal);
  const timeout = deadline.signal;
  try {
    const res = await fetch(url, {
      headers: { 'User-Agent': options.userAgent ?? DEFAULT_USER_AGENT },
      signal: timeout,
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new PackageResolveError(
        `failed to fetch ${url} : ${res.status} ${res.statusText}`.trimEnd(),
        { source: url },
      );
    }
    return await readBody(res, url, options.maxBytes ?? DEFAULT_MAX_BYTES);
  } catch (err) {
    if (err instanceof PackageResolveError) throw err;
    if (timeout.aborted && !signal?.aborted) {
      throw new PackageResolveError(`no answer from ${url} within ${timeoutMs / 1000}s`, {
        source: url,
        cause: err,
      });
    }
    if (signal?.aborted) throw err;
    throw new PackageResolveError(`could not reach ${url}: ${causeText(err)}`, {
      source: url,
      cause: err,
    });
  } finally {
    deadline.clear();
  }
}
