/**
 * A render worker process: runs render and decode jobs one at a time, synchronously, with
 * its own parsed-template cache and a memo of decoded parameter values. Everything that
 * fails here is a failure of the job (the pool enforces deadline and memory from outside).
 * It exits when its parent goes away (the IPC channel closes).
 */
import { Unparsable, convert } from '../params/index.ts';
import {
  ParameterValueError,
  RenderError,
  TemplateCache,
  jobsOf,
  renderJob,
} from '../render/index.ts';
import { DecodeMemo } from './memo.ts';
import { templatesSubject } from './subject.ts';
import { READY, type WorkerFailure, type WorkerReply, type WorkerRequest } from './protocol.ts';

if (!process.send) throw new Error('the render worker must run as a child process with IPC');
const send = (message: WorkerReply | typeof READY): void => {
  process.send?.(message);
};
process.on('disconnect', () => process.exit(0));

const templates = new TemplateCache(256);
const memo = new DecodeMemo();
const decode = (raw: unknown, type: 'array' | 'map'): unknown =>
  memo.get(raw, type, () => convert(raw, type));

function failure(err: unknown, template: string): WorkerFailure {
  if (err instanceof ParameterValueError) {
    return { kind: 'parameter', parameter: err.parameter, detail: err.detail };
  }
  if (err instanceof RenderError) {
    return {
      kind: 'render',
      template: err.template,
      line: err.line,
      detail: err.detail,
    };
  }
  return { kind: 'render', template, detail: err instanceof Error ? err.message : String(err) };
}

/**
 * `package verify`, loaded by the first verify job: most workers render and never verify
 * (bounded packages verify on the main thread), and its modules cost ~2 MiB resident.
 */
async function verify(request: Extract<WorkerRequest, { kind: 'verify' }>): Promise<WorkerReply> {
  const { verifyOperatorVersion } = await import('../verify/index.ts');
  // With rendering: templates run with placeholder values, here where the pool's deadline and
  // heap limit bound them.
  const result = verifyOperatorVersion(request.operatorVersion, {
    namespaceManifest: request.namespaceManifest,
  });
  return { id: request.id, kind: 'verify', result };
}

function handle(request: Exclude<WorkerRequest, { kind: 'verify' }>): WorkerReply {
  if (request.kind === 'decode') {
    const value = decode(request.raw, request.type);
    return {
      id: request.id,
      kind: 'decode',
      outcome: value instanceof Unparsable ? { problem: value.reason } : { value },
    };
  }
  if (request.kind === 'renderAll') {
    const outputs = [];
    for (const job of jobsOf(request.batch)) {
      try {
        outputs.push(renderJob(templates, job, decode));
      } catch (err) {
        return { id: request.id, kind: 'failed', failure: failure(err, job.template) };
      }
    }
    return { id: request.id, kind: 'renderAll', outputs };
  }
  try {
    return { id: request.id, kind: 'render', output: renderJob(templates, request.job, decode) };
  } catch (err) {
    return { id: request.id, kind: 'failed', failure: failure(err, request.job.template) };
  }
}

process.on('message', (request: WorkerRequest) => void answer(request));

async function answer(request: WorkerRequest): Promise<void> {
  let reply: WorkerReply;
  try {
    reply = request.kind === 'verify' ? await verify(request) : handle(request);
  } catch (err) {
    reply = {
      id: request.id,
      kind: 'failed',
      failure: failure(
        err,
        request.kind === 'render'
          ? request.job.template
          : request.kind === 'renderAll'
            ? templatesSubject(request.batch)
            : request.kind === 'verify'
              ? 'package verification'
              : 'parameter value',
      ),
    };
  }
  send(reply);
}

send(READY);
