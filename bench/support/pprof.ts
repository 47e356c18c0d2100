// CPU profiles of the control plane during a bench's burst: kube-apiserver's /debug/pprof
// (the local cluster started with `profiling: true`), summarised by `go tool pprof -top`.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import { promisify } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * Starts a `seconds`-long CPU profile of the apiserver `kc` points at; resolves with the
 * path of the written profile once it ends.
 */
export async function apiServerCpuProfile(
  kc: KubeConfig,
  seconds: number,
  outPath: string,
): Promise<string> {
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const server = new URL(kc.getCurrentCluster()?.server ?? '');
  const body = await new Promise<Buffer>((resolve, reject) => {
    const req = https.get(
      {
        ...opts,
        host: server.hostname,
        port: server.port,
        path: `/debug/pprof/profile?seconds=${seconds}`,
        timeout: (seconds + 30) * 1000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks))
            : reject(
                new Error(
                  `pprof: ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`,
                ),
              ),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('pprof: no answer')));
  });
  await writeFile(outPath, body);
  return outPath;
}

/** `go tool pprof -top` of a profile: flat and cumulative, the first `nodes` lines of each. */
export async function pprofTop(binary: string, profile: string, nodes = 35): Promise<string> {
  const run = async (extra: string[]): Promise<string> =>
    (
      await promisify(execFile)(
        'go',
        ['tool', 'pprof', '-top', `-nodecount=${nodes}`, ...extra, binary, profile],
        { maxBuffer: 16 << 20 },
      )
    ).stdout;
  return `${await run([])}\n--- cumulative ---\n${await run(['-cum'])}`;
}
