// The cluster's own image registry: go-containerregistry's in-memory registry on loopback,
// filled with the local images (images.ts) before any node pulls.
import { join } from 'node:path';
import { probe } from '../http.ts';
import { freeLoopbackPort } from '../ports.ts';
import { startProcess, type ManagedProcess } from '../process.ts';
import { waitUntilReady } from '../wait.ts';
import { pushLocalImages } from './images.ts';

export interface LocalRegistry {
  /** 127.0.0.1:<port> */
  readonly address: string;
  readonly process: ManagedProcess;
}

export async function startLocalRegistry(input: {
  readonly binary: string;
  readonly busybox: string;
  readonly workDir: string;
  readonly readyTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly onSpawn: (process: ManagedProcess) => Promise<void>;
}): Promise<LocalRegistry> {
  const port = await freeLoopbackPort();
  const registry = startProcess(
    'registry',
    input.binary,
    // It binds `localhost:<port>`, i.e. loopback only.
    [`-port=${port}`],
    join(input.workDir, 'registry.log'),
  );
  await input.onSpawn(registry);
  const address = `127.0.0.1:${port}`;
  await waitUntilReady({
    what: `image registry on ${address}`,
    blame: registry,
    running: [registry],
    timeoutMs: input.readyTimeoutMs,
    signal: input.signal,
    check: async () => {
      const res = await probe(`http://${address}/v2/`).catch((err: Error) => ({
        status: 0,
        body: err.message,
      }));
      return res.status === 200 || `/v2/ answered ${res.status} ${res.body}`;
    },
  });
  await pushLocalImages({ registry: address, busyboxPath: input.busybox, signal: input.signal });
  return { address, process: registry };
}
