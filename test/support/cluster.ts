// Test-side access to the shared control plane started by test/integration/global-setup.ts.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import {
  writeUserKubeconfig,
  type LocalClusterInfo,
  type UserCredentials,
} from '../../src/localcluster/index.ts';

export const CLUSTER_STATE_ENV = 'PLANWRIGHT_TEST_CLUSTER';

export function serializeClusterInfo(info: LocalClusterInfo): string {
  const plain: LocalClusterInfo = {
    server: info.server,
    kubeconfigPath: info.kubeconfigPath,
    etcdEndpoint: info.etcdEndpoint,
    binaries: info.binaries,
    workDir: info.workDir,
    servingCaPem: info.servingCaPem,
    clientCa: info.clientCa,
    pids: info.pids,
  };
  return JSON.stringify(plain);
}

let cached: LocalClusterInfo | undefined;

/** The shared cluster of this test run. Throws when not run under the integration project. */
export function testCluster(): LocalClusterInfo {
  if (cached) return cached;
  const file = process.env[CLUSTER_STATE_ENV];
  if (!file) {
    throw new Error(
      `${CLUSTER_STATE_ENV} is not set: integration tests run through the jest project ` +
        '"integration", whose global setup starts the control plane (npm test).',
    );
  }
  cached = JSON.parse(readFileSync(file, 'utf8')) as LocalClusterInfo;
  return cached;
}

/** A KubeConfig for the admin user, or for the kubeconfig file given. */
export function kubeConfig(path: string = testCluster().kubeconfigPath): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** A unique DNS-1123 name with a readable prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/**
 * Creates a fresh namespace for one test file. Namespaces are not deleted afterwards: this
 * control plane has no namespace controller to finalize them, and the whole cluster is
 * thrown away at the end of the run.
 */
export async function createTestNamespace(prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await kubeConfig()
    .makeApiClient(k8s.CoreV1Api)
    .createNamespace({ body: { metadata: { name, labels: { 'planwright.dev/test': 'true' } } } });
  return name;
}

/** A client-certificate user of the shared cluster with only the given groups. */
export async function mintUser(
  name: string,
  groups: readonly string[] = [],
): Promise<UserCredentials> {
  const info = testCluster();
  return writeUserKubeconfig({
    path: `${info.workDir}/user-${name}-${randomBytes(3).toString('hex')}.kubeconfig`,
    server: info.server,
    servingCaPem: info.servingCaPem,
    clientCa: info.clientCa,
    user: name,
    groups,
  });
}

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the version-matched kubectl built with the control plane; never throws on exit code. */
export async function kubectl(
  args: readonly string[],
  options: {
    kubeconfig?: string;
    input?: string;
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
  } = {},
): Promise<KubectlResult> {
  const info = testCluster();
  return new Promise((resolve, reject) => {
    const child = execFile(
      info.binaries.kubectl,
      ['--kubeconfig', options.kubeconfig ?? info.kubeconfigPath, ...args],
      { env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 60_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return reject(new Error(err.message));
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
