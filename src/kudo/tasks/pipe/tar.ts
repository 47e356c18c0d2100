/**
 * The one file a pipe copy wants out of `tar cf - <path>`: the regular file stored under
 * that path (tar drops the leading `/`). Anything else in the stream — directories, links, a
 * symlink in place of the file — is ignored, so only a regular file is ever kept, and it is
 * bounded before it is buffered.
 */
import { extract } from 'tar-stream';

export class TarExtractError extends Error {
  override readonly name = 'TarExtractError';
}

/** `a/./b//c`, `/a/b`, `./a/b` → `a/b/c` style: the path as tar stores it. */
function tarPath(path: string): string {
  return path
    .split('/')
    .filter((p) => p !== '' && p !== '.')
    .join('/');
}

/**
 * The content of the regular file at `path` in a tar stream, or TarExtractError when the
 * stream is not tar, holds no regular file there, or that file is larger than `maxBytes`.
 */
export async function extractFile(tar: Buffer, path: string, maxBytes: number): Promise<Buffer> {
  const want = tarPath(path);
  const reader = extract();
  reader.end(tar);
  let found: Buffer | undefined;
  let other: string | undefined;
  try {
    for await (const entry of reader) {
      const { type, name, size } = entry.header;
      if (tarPath(name) !== want) {
        entry.resume();
        continue;
      }
      if (type !== 'file' && type !== 'contiguous-file') {
        other = type ?? 'unknown';
        entry.resume();
        continue;
      }
      if ((size ?? 0) > maxBytes) {
        entry.resume();
        throw new TarExtractError(`${path} has ${size ?? 0} bytes, more than ${maxBytes}`);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      found = Buffer.concat(chunks);
      other = undefined;
    }
  } catch (err) {
    if (err instanceof TarExtractError) throw err;
    throw new TarExtractError(`the copy of ${path} is not a tar stream: ${(err as Error).message}`);
  }
  if (found === undefined) {
    throw new TarExtractError(
      other
        ? `${path} is not a regular file (it is a ${other})`
        : `the copy of ${path} did not contain it`,
    );
  }
  return found;
}
