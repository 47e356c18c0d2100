/**
 * Where `package verify` of an OperatorVersion runs (the OperatorVersion webhook's check, and
 * the leader's verify Events): on the calling thread when it is cheap by construction, as the
 * controller renders bounded templates (pool/routing.ts); otherwise in a worker process of
 * the pool given, where a deadline and a heap limit bound it.
 *
 * Cheap by construction: every template (the namespace manifest included) is bounded
 * (render/bounded.ts) at the placeholder values verify renders with, its output provably
 * short enough to parse here, and the templates and parameter defaults small. verify's other
 * checks are linear in the OperatorVersion. Most packages qualify: their OperatorVersion
 * writes then start no worker process — a worker costs a Node runtime's memory while it lives
 * (bench/vs-kudo: an OperatorVersion write, then 1,000 Instances, with no worker alive).
 */
import { compileTemplate, TemplateError } from '../../gotemplate/index.ts';
import type { OperatorVersion } from '../api/index.ts';
import {
  INLINE_MAX_PARSE_CHARS,
  INLINE_MAX_TEMPLATE_CHARS,
  INLINE_MAX_WORK_CHARS,
  boundedness,
  inputSize,
  parameterInputs,
  rawParameters,
  sizeAt,
} from '../render/index.ts';
import { planPipes } from '../package/index.ts';
import type { VerifyResult } from './findings.ts';
import { PLACEHOLDERS } from './render.ts';
import { operatorVersionSubject } from './subject.ts';
import { verifyOperatorVersion } from './verify.ts';

/** Template text verified on the calling thread at most, all templates together. */
export const INLINE_MAX_VERIFY_CHARS = 256 * 1024;

/** What verifies in a worker process: the admission or the render pool. */
export interface WorkerVerifier {
  verify(
    operatorVersion: OperatorVersion,
    namespaceManifest: string | undefined,
    signal?: AbortSignal,
  ): Promise<VerifyResult>;
}

export class RoutingVerifier implements WorkerVerifier {
  constructor(private readonly workers: WorkerVerifier) {}

  verify(
    operatorVersion: OperatorVersion,
    namespaceManifest: string | undefined,
    signal?: AbortSignal,
  ): Promise<VerifyResult> {
    if (!verifiesInline(operatorVersion)) {
      return this.workers.verify(operatorVersion, namespaceManifest, signal);
    }
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return Promise.resolve(verifyOperatorVersion(operatorVersion, { namespaceManifest }));
  }
}

/** Whether verifying `ov` is cheap by construction (see the module comment). */
export function verifiesInline(ov: OperatorVersion): boolean {
  const templates = Object.entries(ov.spec?.templates ?? {});
  let total = 0;
  for (const [, text] of templates) {
    if (typeof text !== 'string' || text.length > INLINE_MAX_TEMPLATE_CHARS) return false;
    total += text.length;
    if (total > INLINE_MAX_VERIFY_CHARS) return false;
  }
  const size = placeholderInputSize(ov);
  if (size === undefined) return false;
  return templates.every(([name, text]) => boundedAt(name, text, size));
}

/** The input size of verify's renders: placeholders, parameter defaults and every plan's pipes. */
function placeholderInputSize(ov: OperatorVersion): number | undefined {
  try {
    const parameters = parameterInputs(ov, rawParameters({ metadata: {} }, ov));
    const subject = operatorVersionSubject(ov, { namespaceManifest: undefined });
    const pipes: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [name, plan] of Object.entries(subject.plans)) {
      const all = planPipes(name, plan, subject.tasks, { instance: '', onDuplicate: () => {} });
      for (const [key, value] of all) pipes[key] = value;
    }
    return inputSize('', PLACEHOLDERS, parameters, pipes);
  } catch {
    // A shape verify reports on (its findings say what): not proven cheap, a worker finds out.
    return undefined;
  }
}

/** Whether `text` renders cheaply at input size `size` (plus its own length), output short. */
function boundedAt(name: string, text: string, size: number): boolean {
  let found;
  try {
    found = boundedness(compileTemplate(name, text, { funcs: 'kudo', missingKey: 'error' }));
  } catch (err) {
    // A template that does not parse is reported as such; verify does not render it.
    return err instanceof TemplateError;
  }
  if (!found.bounded) return false;
  const s = size + text.length;
  return (
    sizeAt(found.output, s) <= INLINE_MAX_PARSE_CHARS &&
    sizeAt(found.work, s) <= INLINE_MAX_WORK_CHARS
  );
}
