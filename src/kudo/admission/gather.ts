/**
 * What both Instance webhooks read from an AdmissionReview before deciding: the Instance and
 * the stored one (shape-checked: nothing below trusts a field it did not check), the
 * OperatorVersions they name, and the array/map parameter values decoded off the event loop.
 */
import {
  allow,
  denyInvalid,
  type AdmissionRequest,
  type AdmissionResult,
} from '../../server/index.ts';
import { operatorVersionRef, readStatus } from '../api/index.ts';
import type { Instance, OperatorVersion, OperatorVersionSource } from '../api/index.ts';
import type { ParameterDecoder, ParameterValidator } from '../params/index.ts';
import { instanceShapeProblems, withoutNullFields } from './shape.ts';
import type { DecisionInput } from './types.ts';
import { KUDO_TENANCY, operatorVersionProblem, type TenancyPolicy } from '../tasks/index.ts';

export interface GatherOptions {
  readonly operatorVersions: OperatorVersionSource;
  /**
   * Whose OperatorVersions Instances may use (--allow-operator-version; both postures). Default
   * KUDO's posture without allowances: only the Instance's own namespace.
   */
  readonly tenancy?: TenancyPolicy;
  readonly validator: ParameterValidator;
  /**
   * Decodes array/map parameter values off the event loop (the admission render pool).
   * Without one they are decoded inline (tests).
   */
  readonly decoder?: ParameterDecoder;
}

/** `object` with the parts of its status of the wrong shape left out (see readStatus). */
function statusAsRead(object: unknown): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return object;
  return readStatus(object as Instance).instance;
}

/** The denial for an Instance whose shape does not fit what admission reads. */
function malformed(causes: ReturnType<typeof instanceShapeProblems>): AdmissionResult {
  return denyInvalid(
    `the Instance in this request is malformed: ${causes.map((c) => `${c.field ?? ''}: ${c.message}`).join('; ')}. Fix the object (kubectl explain instance.spec shows the fields).`,
    causes,
  );
}

/** Where a handler's AbortSignal comes from (its AdmissionContext): read only for I/O. */
export interface SignalSource {
  readonly signal: AbortSignal;
}

/** The OperatorVersion `instance` names: from the cache when it holds it, or a GET. */
async function lookup(
  source: OperatorVersionSource,
  instance: Instance,
  context: SignalSource,
): Promise<OperatorVersion | undefined> {
  const ref = operatorVersionRef(instance);
  if (!ref) return undefined;
  return (
    source.peek?.(ref.namespace, ref.name) ??
    (await source.get(ref.namespace, ref.name, context.signal))
  );
}

/**
 * The denial of an Instance that names an OperatorVersion of another namespace its namespace
 * may not use, at CREATE or when the reference changes — before that OperatorVersion is read
 * (its parameters would show in messages). An Instance whose reference stays as it is passes:
 * metadata writes (finalizers) must, and the controller ends its runs instead.
 */
function foreignReference(
  instance: Instance,
  oldInstance: Instance | undefined,
  options: GatherOptions,
): AdmissionResult | undefined {
  const ref = operatorVersionRef(instance);
  if (!ref) return undefined;
  const before = oldInstance ? operatorVersionRef(oldInstance) : undefined;
  if (before && before.namespace === ref.namespace && before.name === ref.name) return undefined;
  const problem = operatorVersionProblem(options.tenancy ?? KUDO_TENANCY, instance, ref);
  if (problem === undefined) return undefined;
  return denyInvalid(problem, [
    {
      field: 'spec.operatorVersion.namespace',
      message: `OperatorVersions of namespace ${ref.namespace} are not allowed for Instances of namespace ${instance.metadata.namespace ?? ''}`,
      reason: 'FieldValueForbidden',
    },
  ]);
}

/**
 * The decision input of a CREATE or UPDATE of an Instance; `allow()` for what neither webhook
 * judges (a subresource write, which a misconfigured registration may still send, or another
 * operation); or the denial when the request carries no usable Instance.
 *
 * Plain async: answering synchronously on a cache hit saved a little CPU per review in
 * process, which no end-to-end run could tell from noise, at the price of a chain of
 * continuations here.
 */
export async function gatherDecisionInput(
  request: AdmissionRequest,
  options: GatherOptions,
  context: SignalSource,
): Promise<DecisionInput | AdmissionResult> {
  const operation = request.operation;
  if (request.subResource || (operation !== 'CREATE' && operation !== 'UPDATE')) return allow();
  if (!request.object) {
    return denyInvalid('the request carries no Instance object', [
      { field: 'metadata', message: 'missing', reason: 'FieldValueRequired' },
    ]);
  }
  // The stored status is untyped and not the requester's to fix: a malformed part
  // is read as absent, as the controller reads it (and rewrites it), instead of a denial.
  const object = statusAsRead(request.object);
  const problems = instanceShapeProblems(object);
  if (problems.length > 0) return malformed(problems);
  const instance = withoutNullFields(object as Instance);
  let oldInstance: Instance | undefined;
  if (operation === 'UPDATE' && request.oldObject) {
    const old = statusAsRead(request.oldObject);
    const oldProblems = instanceShapeProblems(old, 'oldObject');
    if (oldProblems.length > 0) return malformed(oldProblems);
    oldInstance = withoutNullFields(old as Instance);
  }
  const foreign = foreignReference(instance, oldInstance, options);
  if (foreign) return foreign;
  const operatorVersion = await lookup(options.operatorVersions, instance, context);
  let oldOperatorVersion: OperatorVersion | undefined;
  if (oldInstance) {
    const oldRef = operatorVersionRef(oldInstance);
    const newRef = operatorVersionRef(instance);
    const sameRef =
      oldRef && newRef && oldRef.namespace === newRef.namespace && oldRef.name === newRef.name;
    oldOperatorVersion = sameRef
      ? operatorVersion
      : await lookup(options.operatorVersions, oldInstance, context);
  }
  // Array/map values are YAML a user typed: big ones are decoded off the event loop, before
  // the (synchronous) decision validates them.
  const values = instance.spec?.parameters;
  const decoded =
    options.decoder && operatorVersion && values
      ? await options.validator.decode(
          operatorVersion,
          values,
          options.decoder,
          () => context.signal,
        )
      : undefined;
  return {
    operation,
    instance,
    decoded,
    oldInstance,
    operatorVersion,
    oldOperatorVersion,
    user: { username: request.userInfo.username, groups: request.userInfo.groups ?? [] },
    dryRun: request.dryRun,
  };
}

export function isDecisionInput(value: DecisionInput | AdmissionResult): value is DecisionInput {
  return 'instance' in value;
}
