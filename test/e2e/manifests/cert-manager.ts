/**
 * cert-manager for the tests of the cert-manager variant: its controller (Issuers and
 * Certificates: selfSigned and CA) and cainjector, built from the Go wrapper module
 * test/controlplane/clients/ (its cert-manager-local/ package) into the machine's cache once
 * (same lock and progress as the control plane), its CRDs read from the module cache
 * (deploy/crds of the tagged root module: nothing is copied into this repository), and both
 * components run as processes against a cluster's kubeconfig.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeClient } from '../../../src/kube/index.ts';
import { assertGoAvailable, buildGoBinary } from '../../../src/localcluster/go-build.ts';
import { withDirectoryLock } from '../../../src/localcluster/lock.ts';
import { cacheRoot, repositoryRoot } from '../../../src/localcluster/paths.ts';

export const CERT_MANAGER_VERSION = 'v1.21.2';
const MODULE = 'github.com/cert-manager/cert-manager';
const LDFLAGS = '-s -w';
const MODULE_DIR = join(repositoryRoot(), 'test', 'controlplane', 'clients');
/** The program's own sources, in the wrapper module's cert-manager-local/ package. */
const SOURCES = ['main.go', 'controller.go', 'cainjector.go'].map((f) =>
  join('cert-manager-local', f),
);

export interface EnsureOptions {
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
}

/** Path of the cert-manager-local executable (controller + cainjector), built on first use. */
export async function ensureCertManager(options: EnsureOptions = {}): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', ...SOURCES]) {
    hash.update(await readFile(join(MODULE_DIR, file)));
  }
  hash.update(LDFLAGS);
  const dir = join(
    cacheRoot(),
    'cert-manager',
    `${CERT_MANAGER_VERSION}-${hash.digest('hex').slice(0, 12)}`,
  );
  const out = join(dir, 'cert-manager-local');
  if (existsSync(out)) return out;
  assertGoAvailable(`cert-manager ${CERT_MANAGER_VERSION} (controller and cainjector)`);
  await mkdir(dir, { recursive: true });
  await withDirectoryLock(
    join(dir, '.lock'),
    {
      ...(options.signal ? { signal: options.signal } : {}),
      onWait: (pid) =>
        options.onProgress?.(`waiting for process ${pid}, which is building cert-manager`),
    },
    async () => {
      if (existsSync(out)) return;
      for (const entry of await readdir(dir)) {
        if (entry.includes('.partial-')) await rm(join(dir, entry), { force: true });
      }
      await buildGoBinary({
        name: 'cert-manager-local',
        moduleDir: MODULE_DIR,
        pkg: './cert-manager-local',
        out,
        ldflags: LDFLAGS,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        hint: 'See test/controlplane/README.md (cert-manager) for the Go versions it is known to build with.',
      });
    },
  );
  return out;
}

/**
 * The folder of cert-manager's CRD manifests in the Go module cache (downloaded on first use
 * by the module proxy, like the build): deploy/crds of the root module the wrapper requires.
 */
export function certManagerCrdDir(): string {
  const res = spawnSync('go', ['mod', 'download', '-json', `${MODULE}@${CERT_MANAGER_VERSION}`], {
    cwd: MODULE_DIR,
    encoding: 'utf8',
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' },
  });
  if (res.status !== 0) {
    throw new Error(`go mod download of ${MODULE}@${CERT_MANAGER_VERSION} failed: ${res.stderr}`);
  }
  const { Dir } = JSON.parse(res.stdout) as { Dir?: string };
  const crds = Dir ? join(Dir, 'deploy', 'crds') : '';
  if (!crds || !existsSync(crds)) {
    throw new Error(`cert-manager's module has no deploy/crds (looked in ${crds || '?'})`);
  }
  return crds;
}

/** The CRD files (cert-manager.io and acme.cert-manager.io); the folder also holds a README. */
export async function certManagerCrdFiles(): Promise<string[]> {
  const dir = certManagerCrdDir();
  return (await readdir(dir))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(dir, f));
}

export interface RunningCertManager {
  /** The last lines each component wrote (for failure messages). */
  readonly logs: () => string;
  stop(): Promise<void>;
}

/** Starts controller and cainjector against `kubeconfig` until stop(). */
export function startCertManager(binary: string, kubeconfig: string): RunningCertManager {
  const tails = new Map<string, string>();
  const children: ChildProcess[] = ['controller', 'cainjector'].map((component) => {
    const child = spawn(binary, [component, '--kubeconfig', kubeconfig], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer): void => {
      tails.set(component, ((tails.get(component) ?? '') + chunk.toString('utf8')).slice(-8_000));
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    return child;
  });
  return {
    logs: () => [...tails].map(([c, t]) => `--- cert-manager ${c}\n${t}`).join('\n'),
    stop: async () => {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
            }),
        ),
      );
    },
  };
}

/** What `cmctl renew` does: the Issuing condition, set on the Certificate's status. */
export async function renewCertificate(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<void> {
  const certPath = `/apis/cert-manager.io/v1/namespaces/${namespace}/certificates/${name}`;
  const cert = await client.request<{
    metadata: { generation: number };
    status: { conditions?: Array<Record<string, unknown>> };
  }>({ path: certPath });
  cert.status.conditions = [
    ...(cert.status.conditions ?? []).filter((c) => c['type'] !== 'Issuing'),
    {
      type: 'Issuing',
      status: 'True',
      reason: 'ManuallyTriggered',
      message: 'Certificate re-issuance manually triggered by the test',
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      observedGeneration: cert.metadata.generation,
    },
  ];
  await client.request({ method: 'PUT', path: `${certPath}/status`, body: cert });
}
