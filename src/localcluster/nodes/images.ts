// The images real nodes can run, assembled from Debian's busybox-static and pushed to the
// cluster's own registry. Written here instead of with a Go tool (crane): an OCI image is a
// tar layer, a config and a manifest, and tar-stream (already a dependency) writes the layer
// byte-for-byte reproducibly, which saves a Go build on every cold machine.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { LAYER_EPOCH, tarLayer, type LayerEntry } from './layers.ts';
import { pushImage, type OciImage } from './registry-client.ts';

/** One image of the local registry: its repository path and the tags it answers to. */
export interface LocalImage {
  /** Repository path inside the registry, e.g. `library/busybox`. */
  readonly repository: string;
  readonly tags: readonly string[];
  /** What the image runs (OCI config). */
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  /** Extra files on top of busybox (path → content). */
  readonly files?: Readonly<Record<string, string>>;
  readonly exposedPorts?: readonly number[];
}

/** The sandbox ("pause") image containerd starts first in every pod. */
export const SANDBOX_IMAGE = 'registry.k8s.io/pause:3.10';

const NGINX_ROOT = '/usr/share/nginx/html';

/**
 * The images KUDO's cases, the example packages and Pipe tasks use. busybox and alpine are the
 * same busybox userland; nginx is busybox's httpd serving port 80 (what the cases and examples
 * expect of it: a web server that starts and stays up). Everything else does not exist here.
 */
export const LOCAL_IMAGES: readonly LocalImage[] = [
  { repository: 'library/busybox', tags: ['latest', '1.36', '1.35', '1'], cmd: ['sh'] },
  { repository: 'library/alpine', tags: ['latest', '3', '3.20'], cmd: ['sh'] },
  {
    repository: 'library/nginx',
    tags: ['latest', '1', '1.7.9', 'alpine', 'stable'],
    entrypoint: ['httpd', '-f', '-v', '-p', '80', '-h', NGINX_ROOT],
    files: { [`${NGINX_ROOT}/index.html`]: '<html><body>Welcome to nginx!</body></html>\n' },
    exposedPorts: [80],
  },
  {
    repository: 'pause',
    tags: ['3.10'],
    // PID 1 of the pod sandbox: it only has to hold the namespaces until containerd kills it.
    entrypoint: ['sleep', '2147483647'],
  },
];

const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The uncompressed layer: busybox, one link per applet, /etc basics and the extra files. */
export async function busyboxLayer(
  busyboxPath: string,
  files: Readonly<Record<string, string>> = {},
): Promise<Buffer> {
  const applets = listApplets(busyboxPath);
  const binary = await readFile(busyboxPath);
  const entries: LayerEntry[] = [];
  for (const dir of ['bin', 'sbin', 'usr', 'usr/bin', 'usr/sbin', 'etc', 'root']) {
    entries.push({ kind: 'dir', path: dir, mode: 0o755 });
  }
  entries.push({ kind: 'dir', path: 'tmp', mode: 0o1777 });
  entries.push({ kind: 'file', path: 'bin/busybox', mode: 0o755, content: binary });
  for (const applet of applets) {
    if (applet !== 'bin/busybox')
      entries.push({ kind: 'symlink', path: applet, target: '/bin/busybox' });
  }
  entries.push(
    {
      kind: 'file',
      path: 'etc/passwd',
      mode: 0o644,
      content:
        'root:x:0:0:root:/root:/bin/sh\n' + 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n',
    },
    { kind: 'file', path: 'etc/group', mode: 0o644, content: 'root:x:0:\nnogroup:x:65534:\n' },
  );
  for (const [path, content] of Object.entries(files)) {
    entries.push({ kind: 'file', path, mode: 0o644, content });
  }
  return tarLayer(entries);
}

/** The applets the binary provides, as paths relative to `/` (`bin/sh`, `usr/bin/tar`, …). */
function listApplets(busyboxPath: string): string[] {
  const res = spawnSync(busyboxPath, ['--list-full'], { encoding: 'utf8' });
  if (res.status !== 0) {
    throw new Error(`${busyboxPath} --list-full failed: ${res.stderr || res.error?.message}`);
  }
  return [...new Set(res.stdout.split('\n').filter((l) => /^[a-z/]+[^/\s]$/.test(l)))].sort();
}

/** What an image runs and as whom (the OCI config's `config` part). */
export interface ImageRunConfig {
  readonly entrypoint?: readonly string[] | undefined;
  readonly cmd?: readonly string[] | undefined;
  /** `NAME=value`; PATH is set first unless given. */
  readonly env?: readonly string[] | undefined;
  readonly workdir?: string | undefined;
  /** `uid:gid`, as USER. */
  readonly user?: string | undefined;
  readonly exposedPorts?: readonly number[] | undefined;
}

/** An OCI image of uncompressed layers (bottom first) and its config. */
export function ociImageOf(run: ImageRunConfig, layers: readonly Buffer[]): OciImage {
  const env = run.env ?? [];
  const config = {
    architecture: 'amd64',
    os: 'linux',
    created: LAYER_EPOCH.toISOString(),
    config: {
      Env: env.some((e) => e.startsWith('PATH=')) ? [...env] : [PATH_ENV, ...env],
      ...(run.entrypoint ? { Entrypoint: [...run.entrypoint] } : {}),
      ...(run.cmd ? { Cmd: [...run.cmd] } : {}),
      ...(run.exposedPorts
        ? { ExposedPorts: Object.fromEntries(run.exposedPorts.map((p) => [`${p}/tcp`, {}])) }
        : {}),
      ...(run.user ? { User: run.user } : {}),
      WorkingDir: run.workdir ?? '/',
    },
    rootfs: {
      type: 'layers',
      diff_ids: layers.map((l) => `sha256:${createHash('sha256').update(l).digest('hex')}`),
    },
  };
  return { config: Buffer.from(JSON.stringify(config)), layers };
}

/** The OCI image (config + one layer) for a LocalImage. */
export function ociImage(image: LocalImage, layer: Buffer): OciImage {
  return ociImageOf(image, [layer]);
}

/** Builds every local image and pushes it under all its tags. */
export async function pushLocalImages(input: {
  readonly registry: string;
  readonly busyboxPath: string;
  readonly signal?: AbortSignal | undefined;
}): Promise<void> {
  const base = await busyboxLayer(input.busyboxPath);
  for (const image of LOCAL_IMAGES) {
    input.signal?.throwIfAborted();
    const layer = image.files ? await busyboxLayer(input.busyboxPath, image.files) : base;
    await pushImage({
      registry: input.registry,
      repository: image.repository,
      tags: image.tags,
      image: ociImage(image, layer),
    });
  }
}
