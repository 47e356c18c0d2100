// Reproducible image layers from files of this machine: an entry list becomes one uncompressed
// tar, every entry dated 1970 and owned by root (what a Dockerfile's COPY without --chown
// gives), sorted by path, so the same files give the same digest on every build.
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { pack, type Header } from 'tar-stream';

export type LayerEntry =
  | { readonly kind: 'dir'; readonly path: string; readonly mode: number }
  | {
      readonly kind: 'file';
      readonly path: string;
      readonly mode: number;
      readonly content: Buffer | string;
    }
  | { readonly kind: 'symlink'; readonly path: string; readonly target: string };

/** Every entry gets this time: the same files give the same layer digest on every machine. */
export const LAYER_EPOCH = new Date(0);

const relative = (path: string): string => path.replace(/^\/+/, '').replace(/\/+$/, '');

/**
 * The parent folders of every entry that has none of its own (mode 0755), so a runtime that
 * unpacks the layer never invents them with other modes.
 */
function withParents(entries: readonly LayerEntry[]): LayerEntry[] {
  const byPath = new Map<string, LayerEntry>();
  for (const e of entries) byPath.set(relative(e.path), e);
  for (const path of [...byPath.keys()]) {
    const parts = path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!byPath.has(dir)) byPath.set(dir, { kind: 'dir', path: dir, mode: 0o755 });
    }
  }
  return [...byPath.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}

/** One uncompressed tar layer holding the entries (and their parent folders). */
export async function tarLayer(entries: readonly LayerEntry[]): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    tar.on('end', resolve);
    tar.on('error', reject);
  });
  const base: Partial<Header> = { uid: 0, gid: 0, mtime: LAYER_EPOCH };
  for (const e of withParents(entries)) {
    const name = relative(e.path);
    if (e.kind === 'dir') tar.entry({ ...base, name: `${name}/`, type: 'directory', mode: e.mode });
    else if (e.kind === 'symlink')
      tar.entry({ ...base, name, type: 'symlink', linkname: e.target, mode: 0o777 });
    else {
      const body = typeof e.content === 'string' ? Buffer.from(e.content) : e.content;
      tar.entry({ ...base, name, mode: e.mode, size: body.length }, body);
    }
  }
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

/**
 * The entries of a folder of this machine placed at `imagePath` (Docker's COPY of a folder:
 * its contents, modes kept, symbolic links kept as links).
 */
export async function folderEntries(hostPath: string, imagePath: string): Promise<LayerEntry[]> {
  const out: LayerEntry[] = [];
  const walk = async (host: string, image: string): Promise<void> => {
    const info = await lstat(host);
    const mode = info.mode & 0o7777;
    if (info.isSymbolicLink())
      out.push({ kind: 'symlink', path: image, target: await readlink(host) });
    else if (info.isDirectory()) {
      out.push({ kind: 'dir', path: image, mode });
      for (const name of (await readdir(host)).sort()) {
        await walk(join(host, name), posix.join(image, name));
      }
    } else if (info.isFile())
      out.push({ kind: 'file', path: image, mode, content: await readFile(host) });
  };
  await walk(hostPath, imagePath);
  return out;
}
