// containerd, runc, the CNI plugins and busybox for real nodes, from Debian's package
// registry: downloaded with apt and unpacked into the cache (never installed into the system,
// so no service starts and nothing outside the cache changes). Why not built from Go modules:
// containerd is a long build, runc needs cgo and libseccomp headers; the Debian packages are a
// few seconds' download of releases that speak CRI v1 (containerd 1.6) and are patched by
// Debian security.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { withDirectoryLock } from '../lock.ts';
import { cacheRoot } from '../paths.ts';
import { NodeSetupError } from './errors.ts';
import type { NftTool } from './service-route.ts';

/** The Debian packages real nodes take their runtime from. */
export const HOST_PACKAGES: readonly string[] = [
  'containerd',
  'runc',
  'containernetworking-plugins',
  'busybox-static',
  // nft and its libraries: the route from the pods to the apiserver (service-route.ts).
  'nftables',
  'libnftables1',
  'libnftnl11',
  'libmnl0',
  'libjansson4',
  'libxtables12',
  'libedit2',
  'libgmp10',
  'libbsd0',
  'libmd0',
];

/** Absolute paths inside the unpacked packages. */
export interface HostPackagePaths {
  readonly containerd: string;
  /** Folder holding containerd's shims (must be on containerd's PATH). */
  readonly containerdBinDir: string;
  readonly runc: string;
  readonly cniBinDir: string;
  readonly busybox: string;
  readonly nft: NftTool;
}

/** The multiarch library folder the packages unpack into (usr/lib/x86_64-linux-gnu, …). */
function libDirUnder(root: string): string {
  const lib = join(root, 'usr/lib');
  const multiarch = existsSync(lib)
    ? readdirSync(lib).find((d) => d.endsWith('-linux-gnu'))
    : undefined;
  return join(lib, multiarch ?? 'x86_64-linux-gnu');
}

function pathsUnder(root: string): HostPackagePaths {
  return {
    containerd: join(root, 'usr/bin/containerd'),
    containerdBinDir: join(root, 'usr/bin'),
    runc: join(root, 'usr/sbin/runc'),
    cniBinDir: join(root, 'usr/lib/cni'),
    busybox: join(root, 'bin/busybox'),
    nft: { binary: join(root, 'usr/sbin/nft'), libDir: libDirUnder(root) },
  };
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; signal?: AbortSignal | undefined } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C' },
      signal: options.signal,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(out)
        : reject(new NodeSetupError(`${command} ${args.join(' ')} failed (exit ${code})`, out)),
    );
  });
}

/** Candidate versions of the packages, or undefined for those apt does not know. */
function candidateVersions(): Map<string, string | undefined> {
  const res = spawnSync('apt-cache', ['policy', ...HOST_PACKAGES], {
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
  });
  const versions = new Map<string, string | undefined>();
  let current: string | undefined;
  for (const line of (res.stdout ?? '').split('\n')) {
    const pkg = /^(\S+):$/.exec(line);
    if (pkg) current = pkg[1];
    const candidate = /^\s+Candidate:\s+(\S+)/.exec(line);
    if (current && candidate)
      versions.set(current, candidate[1] === '(none)' ? undefined : candidate[1]);
  }
  return versions;
}

/**
 * The unpacked packages, downloaded on first use under a lock (parallel callers wait). The
 * folder's name carries a hash of the package versions, so a Debian update unpacks afresh.
 */
export async function ensureHostPackages(options: {
  readonly onProgress?: ((line: string) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}): Promise<HostPackagePaths> {
  const progress = options.onProgress ?? (() => undefined);
  if (spawnSync('apt-get', ['--version']).status !== 0) {
    throw new NodeSetupError(
      'apt-get is not available: real nodes take containerd, runc and the CNI plugins from ' +
        "Debian's packages",
    );
  }
  let versions = candidateVersions();
  if (HOST_PACKAGES.some((p) => versions.get(p) === undefined)) {
    progress('apt-get update (the package lists do not name containerd, runc, … yet)');
    await run('apt-get', ['update'], { signal: options.signal });
    versions = candidateVersions();
  }
  const missing = HOST_PACKAGES.filter((p) => versions.get(p) === undefined);
  if (missing.length > 0) {
    throw new NodeSetupError(`apt knows no package ${missing.join(', ')} for this system`);
  }
  const label = HOST_PACKAGES.map((p) => `${p}=${versions.get(p) ?? ''}`).join(' ');
  const hash = createHash('sha256').update(label).digest('hex').slice(0, 12);
  const dir = join(cacheRoot(), 'nodes', `debian-${hash}`);
  const root = join(dir, 'root');
  if (existsSync(join(root, 'usr/bin/containerd')) && existsSync(join(root, 'bin/busybox')))
    return pathsUnder(root);
  await mkdir(dir, { recursive: true });
  await withDirectoryLock(
    join(dir, '.lock'),
    {
      signal: options.signal,
      onWait: (pid) => progress(`waiting for process ${pid}, which is unpacking ${dir}`),
    },
    async () => {
      if (existsSync(root)) return;
      const started = Date.now();
      progress(`downloading ${label} from Debian's package registry`);
      const work = join(dir, `.partial-${process.pid}`);
      await rm(work, { recursive: true, force: true });
      await mkdir(join(work, 'root'), { recursive: true });
      await run(
        'apt-get',
        ['download', ...HOST_PACKAGES.map((p) => `${p}=${versions.get(p) ?? ''}`)],
        { cwd: work, signal: options.signal },
      );
      for (const deb of (await readdir(work)).filter((f) => f.endsWith('.deb'))) {
        await run('dpkg-deb', ['-x', join(work, deb), join(work, 'root')], {
          signal: options.signal,
        });
      }
      await rename(join(work, 'root'), root);
      await rm(work, { recursive: true, force: true });
      progress(`unpacked ${label} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    },
  );
  return pathsUnder(root);
}
