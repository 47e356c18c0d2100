/**
 * Running a command in a pod's container through the `pods/exec` subresource (client-node's
 * Exec over WebSocket), bounded: stdout beyond a byte limit ends the session, a deadline ends
 * a hung one, the caller's signal ends it on shutdown. The exit code comes from the status
 * the API server sends at the end (a non-zero code is a result, not an error); anything that
 * keeps the command from running or reporting — upgrade refused (RBAC, no such pod or
 * container), connection lost, no status — is an {@link ExecConnectionError}.
 */
import { PassThrough, Writable } from 'node:stream';
import type { Exec, V1Status } from '@kubernetes/client-node';
import { clientNodeKubeConfig, loadClientNode, type KubeConfig } from '../../../kube/index.ts';

export interface ExecRequest {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly command: readonly string[];
  /** stdout larger than this ends the session with {@link ExecOutputLimitError}. */
  readonly maxStdoutBytes: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: Buffer;
  /** The start of stderr (bounded). */
  readonly stderr: string;
}

/** Runs commands in pods (the real one: {@link WebSocketPodExec}). */
export interface PodExec {
  run(request: ExecRequest): Promise<ExecResult>;
}

/** The command could not be run or did not report: worth retrying. */
export class ExecConnectionError extends Error {
  override readonly name = 'ExecConnectionError';
}

/** The command wrote more to stdout than allowed. */
export class ExecOutputLimitError extends Error {
  override readonly name = 'ExecOutputLimitError';
  constructor(readonly limit: number) {
    super(`wrote more than ${limit} bytes`);
  }
}

const MAX_STDERR_CHARS = 2048;

/** What we use of the `ws` WebSocket client-node returns (its type does not resolve here). */
interface ExecSocket {
  close(): void;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * The exit code a status reports, or undefined when it reports another failure. A kubelet
 * says `NonZeroExitCode` with the code as a cause; a runtime that passes the command's Go
 * error through unwrapped (kwok's local exec does) says InternalError ending in Go's
 * `exit status N`, which is an exit code all the same.
 */
export function exitCodeOf(status: V1Status): number | undefined {
  if (status.status === 'Success') return 0;
  if (status.reason === 'InternalError') {
    const unwrapped = /: exit status (\d+)$/.exec(status.message ?? '');
    return unwrapped ? Number(unwrapped[1]) : undefined;
  }
  if (status.reason !== 'NonZeroExitCode') return undefined;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = Number(cause?.message);
  return Number.isInteger(code) ? code : undefined;
}

/** What a failed WebSocket upgrade says (`Unexpected server response: 403`) in our words. */
function connectionProblem(err: unknown): string {
  const message =
    err instanceof Error
      ? err.message
      : typeof err === 'object' && err !== null && 'message' in err
        ? String(err.message)
        : String(err);
  if (/\b403\b/.test(message)) {
    return `${message} (forbidden: the manager's ServiceAccount needs "create" on pods/exec)`;
  }
  return message;
}

export class WebSocketPodExec implements PodExec {
  constructor(private readonly kubeConfig: KubeConfig) {}

  /**
   * client-node's Exec, loaded by the first Pipe task: its module brings client-node's whole
   * generated API, which a manager without Pipe tasks never needs (src/kube/kubeconfig.ts).
   */
  async run(request: ExecRequest): Promise<ExecResult> {
    const clientNode = await loadClientNode();
    // Loaded by client-node's index (its Exec uses it), so no second set of modules.
    const { WebSocketHandler } = await import('@kubernetes/client-node/dist/web-socket-handler.js');
    const kubeConfig = await clientNodeKubeConfig(this.kubeConfig);
    return this.session(request, (stdout, stderr) => {
      // Our own streams for the handler too: its defaults are the process's stdio, which a
      // close-stream frame from the server would end.
      const handler = new WebSocketHandler(kubeConfig, undefined, {
        stdin: new PassThrough(),
        stdout,
        stderr,
      });
      return new clientNode.Exec(kubeConfig, handler);
    });
  }

  private session(
    request: ExecRequest,
    exec: (stdout: Writable, stderr: Writable) => Exec,
  ): Promise<ExecResult> {
    return new Promise<ExecResult>((resolve, reject) =>
      new ExecSession(request, resolve, reject).start(exec),
    );
  }
}

/**
 * One command's run: it collects the output within its bounds and settles once — with the
 * exit status, or with the first of output limit, deadline, abort or lost connection — then
 * stops the timer, the abort listener and the socket.
 */
class ExecSession {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private stderr = '';
  private socket: ExecSocket | undefined;
  private settled = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly request: ExecRequest,
    private readonly resolve: (result: ExecResult) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  start(exec: (stdout: Writable, stderr: Writable) => Exec): void {
    const { request } = this;
    const stdout = new Writable({ write: (chunk: Buffer, _e, done) => this.onStdout(chunk, done) });
    const errors = new Writable({ write: (chunk: Buffer, _e, done) => this.onStderr(chunk, done) });
    this.timer = setTimeout(
      () =>
        this.fail(
          new ExecConnectionError(
            `no exit status within ${Math.round(request.timeoutMs / 1000)} s`,
          ),
        ),
      request.timeoutMs,
    );
    if (request.signal.aborted) return this.onAbort();
    request.signal.addEventListener('abort', this.onAbort, { once: true });
    exec(stdout, errors)
      .exec(
        request.namespace,
        request.pod,
        request.container,
        [...request.command],
        stdout,
        errors,
        null,
        false,
        (status) => this.onStatus(status),
      )
      .then(
        (connection: unknown) => this.onConnected(connection as ExecSocket),
        (err: unknown) => this.fail(new ExecConnectionError(connectionProblem(err))),
      );
  }

  private onStdout(chunk: Buffer, done: () => void): void {
    this.bytes += chunk.length;
    if (this.bytes > this.request.maxStdoutBytes) {
      this.fail(new ExecOutputLimitError(this.request.maxStdoutBytes));
    } else this.chunks.push(chunk);
    done();
  }

  private onStderr(chunk: Buffer, done: () => void): void {
    if (this.stderr.length < MAX_STDERR_CHARS) {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(0, MAX_STDERR_CHARS);
    }
    done();
  }

  /** The status the API server sends at the end: an exit code, or why the command did not run. */
  private onStatus(status: V1Status): void {
    this.finish(() => {
      const exitCode = exitCodeOf(status);
      if (exitCode === undefined) {
        this.reject(new ExecConnectionError(status.message ?? status.reason ?? 'exec failed'));
      } else this.resolve({ exitCode, stdout: Buffer.concat(this.chunks), stderr: this.stderr });
    });
  }

  private onConnected(ws: ExecSocket): void {
    this.socket = ws;
    if (this.settled) ws.close();
    ws.on('close', () =>
      this.fail(new ExecConnectionError('the exec stream closed without an exit status')),
    );
    ws.on('error', (err: Error) => this.fail(new ExecConnectionError(err.message)));
  }

  private readonly onAbort = (): void => this.fail(this.request.signal.reason as Error);

  private fail(err: Error): void {
    this.finish(() => this.reject(err));
  }

  private finish(settle: () => void): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.request.signal.removeEventListener('abort', this.onAbort);
    try {
      this.socket?.close();
    } catch {
      // already closed
    }
    settle();
  }
}
