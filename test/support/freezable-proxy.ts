// A TCP proxy in front of a server (the apiserver) that can stop moving bytes: what a wedged
// network path or a stalled apiserver looks like to a client (connections stay open, nothing
// arrives). Used by the liveness test and by the tests of requests that must end on abort.
import net from 'node:net';

/** A TCP proxy that can stop moving bytes (both ways, every connection) and start again. */
export class FreezableProxy {
  private readonly sockets = new Set<net.Socket>();
  private readonly clients = new Set<net.Socket>();
  private frozen = false;
  private readonly server: net.Server;

  constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(target);
      this.clients.add(client);
      client.on('close', () => this.clients.delete(client));
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(from);
        from.on('data', (chunk) => to.write(chunk));
        from.on('close', () => {
          this.sockets.delete(from);
          to.destroy();
        });
        from.on('error', () => to.destroy());
        if (this.frozen) from.pause();
      }
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Client connections open now (a client that gave up on a request closed its own). */
  get openConnections(): number {
    return this.clients.size;
  }

  freeze(): void {
    this.frozen = true;
    for (const s of this.sockets) s.pause();
  }

  thaw(): void {
    this.frozen = false;
    for (const s of this.sockets) s.resume();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
