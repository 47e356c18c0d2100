// The base layer of an image that runs Node.js, taken from this machine: no outside registry
// is reachable here, so the runtime is the Node executable that runs this process plus the
// shared libraries the dynamic loader resolves for it (ldd), at the paths it resolves them to
// — a distroless-style base with nothing else: no shell, no package manager.
import { spawnSync } from 'node:child_process';
import { readFile, realpath } from 'node:fs/promises';
import type { LayerEntry } from './layers.ts';
import { NodeSetupError } from './errors.ts';

/** Where the image holds `node` (on the image's PATH). */
export const IMAGE_NODE_PATH = '/usr/local/bin/node';

/** The absolute paths of the libraries `ldd` names for an executable, loader included. */
export function sharedLibraries(lddOutput: string): string[] {
  const paths = new Set<string>();
  for (const line of lddOutput.split('\n')) {
    const arrow = /=>\s+(\/\S+)/.exec(line);
    const bare = /^\s*(\/\S+)\s+\(/.exec(line);
    const path = arrow?.[1] ?? bare?.[1];
    if (path) paths.add(path);
  }
  return [...paths].sort();
}

/** The runtime's files, and the users the image names (root, nonroot 65532, nobody). */
export async function hostNodeEntries(
  nodeExecutable: string = process.execPath,
): Promise<LayerEntry[]> {
  const executable = await realpath(nodeExecutable);
  const ldd = spawnSync('ldd', [executable], { encoding: 'utf8' });
  if (ldd.status !== 0) {
    throw new NodeSetupError(
      `ldd ${executable} failed: cannot tell which libraries the image's node needs`,
      `${ldd.stderr ?? ''}${ldd.error?.message ?? ''}`,
    );
  }
  const entries: LayerEntry[] = [
    { kind: 'file', path: IMAGE_NODE_PATH, mode: 0o755, content: await readFile(executable) },
    { kind: 'dir', path: 'tmp', mode: 0o1777 },
    {
      kind: 'file',
      path: 'etc/passwd',
      mode: 0o644,
      content:
        'root:x:0:0:root:/root:/sbin/nologin\n' +
        'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' +
        'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n',
    },
    {
      kind: 'file',
      path: 'etc/group',
      mode: 0o644,
      content: 'root:x:0:\nnonroot:x:65532:\nnogroup:x:65534:\n',
    },
    { kind: 'dir', path: 'home/nonroot', mode: 0o755 },
  ];
  // A library named by a link (e.g. /lib64/ld-linux-x86-64.so.2) is stored as the file it
  // leads to, under the name the loader asks for.
  for (const lib of sharedLibraries(ldd.stdout)) {
    entries.push({
      kind: 'file',
      path: lib,
      mode: 0o755,
      content: await readFile(await realpath(lib)),
    });
  }
  return entries;
}
