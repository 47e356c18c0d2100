import { describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import * as k8s from '@kubernetes/client-node';
import { writeUserKubeconfig } from '../../../src/localcluster/kubeconfig.ts';
import { createCertificateAuthority } from '../../../src/pki/index.ts';

describe('writeUserKubeconfig', () => {
  it('writes a private, self-contained kubeconfig whose certificate names the user and groups', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pw-kc-'));
    const clientCa = createCertificateAuthority({ commonName: 'client-ca' });
    const servingCa = createCertificateAuthority({ commonName: 'serving-ca' });
    const path = join(dir, 'u.kubeconfig');
    await writeUserKubeconfig({
      path,
      server: 'https://127.0.0.1:6443',
      servingCaPem: servingCa.certPem,
      clientCa,
      user: 'carol',
      groups: ['team-a'],
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(path);
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kc.getCurrentUser()?.name).toBe('carol');

    const doc = parse(await readFile(path, 'utf8')) as {
      users: Array<{ user: Record<string, string> }>;
    };
    const certPem = Buffer.from(
      doc.users[0]?.user['client-certificate-data'] ?? '',
      'base64',
    ).toString();
    const cert = new X509Certificate(certPem);
    expect(cert.subject.split('\n')).toEqual(['CN=carol', 'O=team-a']);
    expect(cert.checkIssued(new X509Certificate(clientCa.certPem))).toBe(true);
  });
});
