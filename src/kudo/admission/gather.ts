/**
 * What both Instance webhooks read from an AdmissionReview before deciding: the Instance and
 * the stored one (shape-checked: nothing below trusts a field it did not check), the
 * OperatorVersions they name, and the array/map parameter values decoded off the event loop.
 */
import {
  allow,
  andThen,
  denyInvalid,
  type AdmissionRequest,
  type AdmissionResult,
} from '../../server/index.ts';
import { operatorVersionRef } from '../api/read.ts';
import type { Instance, OperatorVersion } from '../api/types.ts';
import type { ParameterDecoder, ParameterValidator } from '../params/validator.ts';
import { instanceShapeProblems, withoutNullFields } from './shape.ts';
import type { OperatorVersionSource } from '../api/contracts.ts';
import type { DecisionInput } from './types.ts';

export interface GatherOptions {
  readonly operatorVersions: OperatorVersionSource;
  readonly validator: ParameterValidator;
  /**
   * Decodes array/map parameter values off the event loop (the admission render pool).
   * Without one they are decoded inline (tests).
   */
  readonly decoder?: ParameterDecoder;
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

/** The OperatorVersion `instance` names: from the cache at once, or a GET on a miss. */
function lookup(
  source: OperatorVersionSource,
  instance: Instance,
  context: SignalSource,
): OperatorVersion | undefined | Promise<OperatorVersion | undefined> {
  const ref = operatorVersionRef(instance);
  if (!ref) return undefined;
  return (
    source.peek?.(ref.namespace, ref.name) ?? source.get(ref.namespace, ref.name, context.signal)
  );
}

/**
 * The decision input of a CREATE or UPDATE of an Instance; `allow()` for what neither webhook
 * judges (a subresource write, which a misconfigured registration may still send, or another
 * operation); or the denial when the request carries no usable Instance. Synchronous when the
 * OperatorVersions are cached and no value needs the decoder pool (the usual review): no
 * promise, and `context.signal` is never made.
 */
export function gatherDecisionInput(
  request: AdmissionRequest,
  options: GatherOptions,
  context: SignalSource,
): DecisionInput | AdmissionResult | Promise<DecisionInput | AdmissionResult> {
  const operation = request.operation;
  if (request.subResource || (operation !== 'CREATE' && operation !== 'UPDATE')) return allow();
  if (!request.object) {
    return denyInvalid('the request carries no Instance object', [
      { field: 'metadata', message: 'missing', reason: 'FieldValueRequired' },
    ]);
  }
  const problems = instanceShapeProblems(request.object);
  if (problems.length > 0) return malformed(problems);
  const instance = withoutNullFields(request.object as unknown as Instance);
  let oldInstance: Instance | undefined;
  if (operation === 'UPDATE' && request.oldObject) {
    const oldProblems = instanceShapeProblems(request.oldObject, 'oldObject');
    if (oldProblems.length > 0) return malformed(oldProblems);
    oldInstance = withoutNullFields(request.oldObject as unknown as Instance);
  }
  return andThen(lookup(options.operatorVersions, instance, context), (operatorVersion) => {
    const oldRef = oldInstance ? operatorVersionRef(oldInstance) : undefined;
    const newRef = operatorVersionRef(instance);
    const sameRef =
      oldRef && newRef && oldRef.namespace === newRef.namespace && oldRef.name === newRef.name;
    const oldLookup = oldInstance
      ? sameRef
        ? operatorVersion
        : lookup(options.operatorVersions, oldInstance, context)
      : undefined;
    return andThen(oldLookup, (oldOperatorVersion) => {
      // Array/map values are YAML a user typed: big ones are decoded off the event loop,
      // before the (synchronous) decision validates them.
      const values = instance.spec?.parameters;
      const decoding =
        options.decoder && operatorVersion && values
          ? options.validator.decode(operatorVersion, values, options.decoder, () => context.signal)
          : undefined;
      return andThen(decoding, (decoded): DecisionInput => ({
        operation,
        instance,
        ...(decoded ? { decoded } : {}),
        ...(oldInstance ? { oldInstance } : {}),
        operatorVersion,
        oldOperatorVersion,
        user: { username: request.userInfo.username, groups: request.userInfo.groups ?? [] },
        dryRun: request.dryRun,
      }));
    });
  });
}

export function isDecisionInput(value: DecisionInput | AdmissionResult): value is DecisionInput {
  return 'instance' in value;
}
