// LiteKubeConfig against client-node's KubeConfig on the same kubeconfigs: the same entries,
// and the same request options (TLS material, headers, basic auth) for every kind of user the
// manager runs with — static ones answered by LiteKubeConfig itself, exec plugins by
// client-node's KubeConfig loaded on demand.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { LiteKubeConfig } from '../../../src/kube/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'lite-kubeconfig-'));
mkdirSync(join(dir, 'certs'));
writeFileSync(join(dir, 'certs', 'ca.crt'), 'CA FROM FILE');
writeFileSync(join(dir, 'certs', 'client.crt'), 'CERT FROM FILE');
writeFileSync(join(dir, 'certs', 'client.key'), 'KEY FROM FILE');
const b64 = (text: string): string => Buffer.from(text).toString('base64');

// One ExecCredential, printed by a shell command (the exec plugin protocol).
const credential = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token: 'token-from-exec' },
});

const file = join(dir, 'config');
writeFileSync(
  file,
  `apiVersion: v1
kind: Config
clusters:
  - name: files
    cluster: { server: 'https://127.0.0.1:6443', certificate-authority: certs/ca.crt, tls-server-name: api.local }
  - name: data
    cluster: { server: 'https://10.0.0.1:443', certificate-authority-data: ${b64('CA DATA')} }
  - name: insecure
    cluster: { server: 'https://10.0.0.2:443', insecure-skip-tls-verify: true }
users:
  - name: certs
    user: { client-certificate: certs/client.crt, client-key: certs/client.key }
  - name: data
    user: { client-certificate-data: ${b64('CERT DATA')}, client-key-data: ${b64('KEY DATA')}, as: someone }
  - name: token
    user: { token: static-token }
  - name: basic
    user: { username: alice, password: secret }
  - name: exec
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: sh
        args: ['-c', 'echo ''${credential}''']
        interactiveMode: Never
contexts:
  - { name: certs, context: { cluster: files, user: certs, namespace: team-a } }
  - { name: data, context: { cluster: data, user: data } }
  - { name: token, context: { cluster: insecure, user: token } }
  - { name: basic, context: { cluster: data, user: basic } }
  - { name: exec, context: { cluster: files, user: exec } }
current-context: certs
`,
);

/** Both configurations on `context` of the file. */
function both(context: string): [LiteKubeConfig, KubeConfig] {
  const lite = new LiteKubeConfig();
  lite.loadFromFile(file);
  lite.setCurrentContext(context);
  const full = new KubeConfig();
  full.loadFromFile(file);
  full.setCurrentContext(context);
  return [lite, full];
}

/** What KubeClient takes from the options (client-node also adds its own agent). */
async function requestOptions(
  kc: Pick<KubeConfig, 'applyToHTTPSOptions'>,
): Promise<Record<string, unknown>> {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const { ca, cert, key, servername, rejectUnauthorized, auth, headers } = opts;
  const text = (v: unknown): unknown => (Buffer.isBuffer(v) ? v.toString('utf8') : v);
  return {
    ca: text(ca),
    cert: text(cert),
    key: text(key),
    servername,
    rejectUnauthorized,
    auth,
    headers: { ...headers },
  };
}

describe('LiteKubeConfig', () => {
  it.each(['certs', 'data', 'token', 'basic'])(
    'reads context %s as client-node does, and fills the same request options',
    async (context) => {
      const [lite, full] = both(context);
      expect(lite.getCurrentContext()).toBe(full.getCurrentContext());
      expect(lite.getContextObject(context)).toEqual(full.getContextObject(context));
      expect(lite.getCurrentCluster()).toEqual(full.getCurrentCluster());
      expect(lite.getCurrentUser()).toEqual(full.getCurrentUser());
      expect(await requestOptions(lite)).toEqual(await requestOptions(full));
    },
  );

  it('takes certificate files relative to the kubeconfig, and data as base64', async () => {
    const [certs] = both('certs');
    expect(await requestOptions(certs)).toMatchObject({
      ca: 'CA FROM FILE',
      cert: 'CERT FROM FILE',
      key: 'KEY FROM FILE',
      servername: 'api.local',
    });
    const [data] = both('data');
    expect(await requestOptions(data)).toMatchObject({
      ca: 'CA DATA',
      cert: 'CERT DATA',
      headers: { 'Impersonate-User': 'someone' },
    });
    const [token] = both('token');
    expect(await requestOptions(token)).toMatchObject({
      rejectUnauthorized: false,
      headers: { Authorization: 'Bearer static-token' },
    });
  });

  it("hands an exec plugin's user to client-node's KubeConfig", async () => {
    const [lite, full] = both('exec');
    const options = await requestOptions(lite);
    expect(options['headers']).toEqual({ Authorization: 'Bearer token-from-exec' });
    expect(options).toEqual(await requestOptions(full));
  });

  it('in a pod, reads the service-account token file and the API server from the environment', async () => {
    const root = join(dir, 'pod');
    const sa = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'pod-token');
    writeFileSync(join(sa, 'ca.crt'), 'POD CA');
    writeFileSync(join(sa, 'namespace'), 'planwright-system');
    const kc = new LiteKubeConfig();
    kc.loadFromCluster(root, {
      KUBERNETES_SERVICE_HOST: 'fd00::1',
      KUBERNETES_SERVICE_PORT: '443',
    });
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('planwright-system');
    expect(await requestOptions(kc)).toMatchObject({
      ca: 'POD CA',
      headers: { Authorization: 'Bearer pod-token' },
    });
  });

  it('refuses an entry client-node refuses, with its message', () => {
    const broken = join(dir, 'broken');
    writeFileSync(broken, 'clusters: [{ name: c, cluster: {} }]\n');
    expect(() => new LiteKubeConfig().loadFromFile(broken)).toThrow(
      /clusters\[0\]\.cluster\.server is missing/,
    );
  });
});
