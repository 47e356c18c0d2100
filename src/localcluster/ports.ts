import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. The caller binds it soon after; the
 * small race with other processes is handled by the caller retrying a failed start.
 */
export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}
