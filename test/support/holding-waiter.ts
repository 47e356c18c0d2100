// A Pipe waiter image for catching Planwright in the middle of a copy: the local registry's
// busybox plus one layer with a `tar` first on PATH that notes each run in the pipe volume
// and waits while a hold file lies there, then runs busybox's tar. Planwright gets it through
// its own `--pipe-waiter-image` flag (what a mirror on an air-gapped cluster would be); the
// copy itself — stat, tar, the exec streams — stays real.
import { createHash } from 'node:crypto';
import { tarLayer } from '../../src/localcluster/index.ts';
import { pushImage } from '../../src/localcluster/nodes/registry-client.ts';

const REPOSITORY = 'planwright-test/holding-waiter';
/** How the image is named in a pod: docker.io is pulled from the local registry. */
export const HOLDING_WAITER_IMAGE = `docker.io/${REPOSITORY}:1`;

export interface HoldFiles {
  /** While this file exists, every tar waits. */
  readonly hold: string;
  /** Written by a tar that waits. */
  readonly held: string;
  /** One line per tar run. */
  readonly runs: string;
}

/** The files in the pipe volume mounted at `dir` (the waiter runs as nobody: it can write there). */
export function holdFiles(dir: string): HoldFiles {
  return { hold: `${dir}/.hold-tar`, held: `${dir}/.tar-held`, runs: `${dir}/.tar-runs` };
}

function script(files: HoldFiles): string {
  return `#!/bin/sh
# Planwright restart test: counts tar runs and holds each while the hold file lies there.
echo "$*" >> ${files.runs}
while [ -e ${files.hold} ]; do : > ${files.held}; sleep 0.1; done
exec /bin/tar "$@"
`;
}

function layer(files: HoldFiles): Promise<Buffer> {
  return tarLayer([{ kind: 'file', path: 'hold/tar', mode: 0o755, content: script(files) }]);
}

async function get(url: string, accept?: string): Promise<Buffer> {
  const res = await fetch(url, accept ? { headers: { accept } } : {});
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

interface Manifest {
  config: { digest: string };
  layers: Array<{ digest: string }>;
}

interface ImageConfig {
  config: { Env?: string[] } & Record<string, unknown>;
  rootfs: { diff_ids: string[] };
}

/** Pushes the holding waiter to the cluster's registry (host:port), built on its busybox:1.36. */
export async function pushHoldingWaiter(registry: string, files: HoldFiles): Promise<string> {
  const base = `http://${registry}/v2/library/busybox`;
  const manifest = JSON.parse(
    (await get(`${base}/manifests/1.36`, 'application/vnd.oci.image.manifest.v1+json')).toString(),
  ) as Manifest;
  const config = JSON.parse(
    (await get(`${base}/blobs/${manifest.config.digest}`)).toString(),
  ) as ImageConfig;
  const layers = await Promise.all(manifest.layers.map((l) => get(`${base}/blobs/${l.digest}`)));
  const hold = await layer(files);
  const env = (config.config.Env ?? []).filter((e) => !e.startsWith('PATH='));
  const path = (config.config.Env ?? []).find((e) => e.startsWith('PATH='))?.slice(5) ?? '/bin';
  config.config.Env = [...env, `PATH=/hold:${path}`];
  config.rootfs.diff_ids.push(`sha256:${createHash('sha256').update(hold).digest('hex')}`);
  await pushImage({
    registry,
    repository: REPOSITORY,
    tags: ['1'],
    image: { config: Buffer.from(JSON.stringify(config)), layers: [...layers, hold] },
  });
  return HOLDING_WAITER_IMAGE;
}
