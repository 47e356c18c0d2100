// The few calls of the OCI distribution API the local cluster makes to its own registry:
// monolithic blob uploads, manifest puts and manifest existence checks.
import { createHash } from 'node:crypto';
import { request } from 'node:http';

export interface OciImage {
  readonly config: Buffer;
  /** Uncompressed tar layers, bottom first. */
  readonly layers: readonly Buffer[];
}

export const MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
const CONFIG_MEDIA_TYPE = 'application/vnd.oci.image.config.v1+json';
const LAYER_MEDIA_TYPE = 'application/vnd.oci.image.layer.v1.tar';

/** The registry answered something other than what the distribution spec promises. */
export class LocalRegistryError extends Error {
  override readonly name = 'LocalRegistryError';
  constructor(
    message: string,
    readonly url: string,
    readonly status: number,
  ) {
    super(`${message} (${url} answered ${status})`);
  }
}

interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

function send(
  url: string,
  options: { method: string; body?: Buffer; contentType?: string },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method,
        agent: false,
        timeout: 30_000,
        headers: {
          ...(options.contentType ? { 'content-type': options.contentType } : {}),
          ...(options.body ? { 'content-length': String(options.body.length) } : {}),
          accept: MANIFEST_MEDIA_TYPE,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${options.method} ${url}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

const digestOf = (data: Buffer): string =>
  `sha256:${createHash('sha256').update(data).digest('hex')}`;

async function uploadBlob(base: string, repository: string, data: Buffer): Promise<string> {
  const digest = digestOf(data);
  if ((await send(`${base}/v2/${repository}/blobs/${digest}`, { method: 'HEAD' })).status === 200)
    return digest;
  const start = await send(`${base}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
  const location = start.headers['location'];
  if (start.status !== 202 || typeof location !== 'string') {
    throw new LocalRegistryError(
      'blob upload not started',
      `${base}/v2/${repository}`,
      start.status,
    );
  }
  const target = new URL(location, base);
  target.searchParams.set('digest', digest);
  const put = await send(target.toString(), {
    method: 'PUT',
    body: data,
    contentType: 'application/octet-stream',
  });
  if (put.status !== 201)
    throw new LocalRegistryError('blob upload refused', target.toString(), put.status);
  return digest;
}

/** Uploads the blobs and puts the manifest under every tag. */
export async function pushImage(input: {
  readonly registry: string;
  readonly repository: string;
  readonly tags: readonly string[];
  readonly image: OciImage;
}): Promise<void> {
  const base = `http://${input.registry}`;
  const configDigest = await uploadBlob(base, input.repository, input.image.config);
  const layers = [];
  for (const layer of input.image.layers) {
    const digest = await uploadBlob(base, input.repository, layer);
    layers.push({ mediaType: LAYER_MEDIA_TYPE, digest, size: layer.length });
  }
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MANIFEST_MEDIA_TYPE,
      config: {
        mediaType: CONFIG_MEDIA_TYPE,
        digest: configDigest,
        size: input.image.config.length,
      },
      layers,
    }),
  );
  for (const tag of input.tags) {
    const url = `${base}/v2/${input.repository}/manifests/${tag}`;
    const res = await send(url, {
      method: 'PUT',
      body: manifest,
      contentType: MANIFEST_MEDIA_TYPE,
    });
    if (res.status !== 201) throw new LocalRegistryError('manifest refused', url, res.status);
  }
}

/** Whether the registry holds `repository:reference` (a tag or a digest). */
export async function hasManifest(
  registry: string,
  repository: string,
  reference: string,
): Promise<boolean> {
  const url = `http://${registry}/v2/${repository}/manifests/${reference}`;
  const res = await send(url, { method: 'HEAD' });
  if (res.status === 200) return true;
  if (res.status === 404) return false;
  throw new LocalRegistryError('manifest lookup failed', url, res.status);
}
