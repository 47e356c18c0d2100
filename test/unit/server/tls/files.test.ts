// Files mode on a directory laid out like a mounted Secret (`..data` symlink swaps): the
// server serves the files' certificate and swaps it in place when the symlink moves.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { createCertificateAuthority, issueCertificate } from '../../../../src/pki/index.ts';
import type { WebhookServer } from '../../../../src/server/index.ts';
import { FileCertificateSource } from '../../../../src/server/index.ts';
import { capturingLogger, httpsRequest } from '../../../support/https.ts';
import { waitFor } from '../../../support/wait.ts';
import { loopbackWebhookServer } from '../../../support/admission.ts';

const ca = createCertificateAuthority({ commonName: 'files-ca' });
const issue = (): { certPem: string; keyPem: string } =>
  issueCertificate(ca, { commonName: 'webhook', ipAddresses: ['127.0.0.1'], usage: 'server' });

/** Writes a new timestamped dir and atomically points `..data` at it, as kubelet does. */
async function publish(
  dir: string,
  pair: { certPem: string; keyPem: string },
  n: number,
): Promise<void> {
  const version = join(dir, `..v${n}`);
  await mkdir(version);
  await writeFile(join(version, 'tls.crt'), pair.certPem);
  await writeFile(join(version, 'tls.key'), pair.keyPem);
  await symlink(`..v${n}`, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
}

function presented(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: ca.certPem }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.end();
      resolve(cert?.serialNumber ?? '');
    });
    socket.on('error', reject);
  });
}

describe('FileCertificateSource', () => {
  const stop = new AbortController();
  let dir: string;
  let server: WebhookServer;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pw-files-'));
    await publish(dir, issue(), 1);
    await symlink('..data/tls.crt', join(dir, 'tls.crt'));
    await symlink('..data/tls.key', join(dir, 'tls.key'));
    const { logger } = capturingLogger();
    server = loopbackWebhookServer(
      new FileCertificateSource({ directory: dir, logger, pollIntervalMs: 200 }),
      logger,
    );
    ({ port } = await server.listen(stop.signal));
  });

  afterAll(async () => {
    stop.abort();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the files and hot-swaps on a symlink swap, keeping the old pair on a bad one', async () => {
    const first = await presented(port);
    const next = issue();
    await publish(dir, next, 2);
    const nextSerial = new X509Certificate(next.certPem).serialNumber;
    await waitFor('new certificate served', async () => (await presented(port)) === nextSerial);
    expect(nextSerial).not.toBe(first);

    // A mismatched pair (key of another cert) is refused; the server keeps serving.
    await publish(dir, { certPem: issue().certPem, keyPem: issue().keyPem }, 3);
    await new Promise((r) => setTimeout(r, 600));
    expect(await presented(port)).toBe(nextSerial);
    expect((await httpsRequest({ port, path: '/readyz', ca: ca.certPem })).status).toBe(200);
  });
});
