/**
 * The webhook server's request deadlines, as timers that exist only while a connection does.
 *
 * Node enforces `headersTimeout`/`requestTimeout` with one interval per server
 * (`connectionsCheckingInterval`) that runs for the server's whole life, connections or not:
 * at the 1 s the deadlines need to be precise, an idle replica woke 60 times a minute for
 * nothing. Here every connection carries one timer for the deadline it is in, cleared and
 * re-armed as it moves on (Node keeps timers of one duration in one list: arming and
 * clearing wake nothing), so a replica without connections has no timer at all:
 *
 * * from the TLS handshake to the end of the request headers: `headersTimeoutMs`;
 * * from the headers to the end of the request body: `requestTimeoutMs` (the handler's own
 *   deadline covers the answer);
 * * from a response on a kept-alive connection to the next request's headers:
 *   `keepAliveTimeoutMs + headersTimeoutMs` (Node's keep-alive timeout ends idle sockets;
 *   this bounds a next request whose headers trickle in).
 *
 * A connection past its deadline is answered `408 Request Timeout` when no answer has
 * started, and closed.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Deadlines {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

/** Node's own connection checker, switched off: {@link enforceDeadlines} replaces it. */
export const NODE_DEADLINES_OFF = {
  headersTimeout: 0,
  requestTimeout: 0,
  // The longest interval a timer may have (a longer one would fire after 1 ms): with both
  // timeouts 0 the check does nothing, and it wakes the process once every 24.8 days.
  connectionsCheckingInterval: 2 ** 31 - 1,
} as const;

const TIMEOUT_ANSWER =
  'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/** Arms the deadlines on every connection `server` accepts over TLS (`secureConnection`). */
export function enforceDeadlines(server: Server, deadlines: Deadlines): void {
  const timers = new Map<Socket, NodeJS.Timeout>();
  const arm = (socket: Socket, ms: number, expired: () => void): void => {
    clearTimeout(timers.get(socket));
    const timer = setTimeout(() => {
      timers.delete(socket);
      expired();
    }, ms);
    // A connection's deadline must not keep a stopping process alive.
    timer.unref();
    timers.set(socket, timer);
  };
  const disarm = (socket: Socket): void => {
    clearTimeout(timers.get(socket));
    timers.delete(socket);
  };
  const answerAndClose = (socket: Socket): void => {
    if (socket.writable) socket.end(TIMEOUT_ANSWER, () => socket.destroy());
    else socket.destroy();
  };

  server.on('secureConnection', (socket: Socket) => {
    arm(socket, deadlines.headersTimeoutMs, () => answerAndClose(socket));
    socket.once('close', () => disarm(socket));
  });
  // Registered before the request listener: the headers are complete when this runs.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (socket.destroyed) return;
    arm(socket, deadlines.requestTimeoutMs, () => {
      if (!res.headersSent) {
        res.writeHead(408, { connection: 'close', 'content-length': '0' });
        res.end(() => socket.destroy());
      } else socket.destroy();
    });
    // The whole request is in: the handler's deadline takes over.
    const received = (): void => disarm(socket);
    if (req.complete) received();
    else req.once('end', received);
    res.once('finish', () => {
      req.off('end', received);
      if (socket.destroyed || !socket.writable) return;
      arm(socket, deadlines.keepAliveTimeoutMs + deadlines.headersTimeoutMs, () =>
        answerAndClose(socket),
      );
    });
  });
}
