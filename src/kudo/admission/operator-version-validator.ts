/**
 * The validating webhooks for OperatorVersions (`/validate/operatorversions`) and Operators
 * (`/validate/operators`):
 * - CREATE/UPDATE of an OperatorVersion runs `package verify` on it (the same verifier as the
 *   CLI). It is refused only when it cannot be read at all; what the verifier finds is
 *   returned as admission warnings and admitted, as KUDO admits it — or, under strict package
 *   admission, refused with one 422 cause per error (see verify-verdict.ts, docs/admission.md).
 *   Changing the spec of an OperatorVersion that Instances use is allowed, with a warning
 *   naming them (OperatorVersions are meant to be versioned).
 * - DELETE of an OperatorVersion or Operator that Instances still use is refused, naming them.
 *
 * See examples/api/kudo.ts.
 */
import { jsonEqual } from '../api/index.ts';
import {
  allow,
  denyForbidden,
  denyInternal,
  denyInvalid,
  type AdmissionContext,
  type AdmissionHandler,
  type AdmissionRequest,
  type AdmissionResult,
} from '../../server/index.ts';
import { RenderLimitError } from '../pool/index.ts';
import { RenderError } from '../render/index.ts';
import type { Instance, Operator, OperatorVersion } from '../api/index.ts';
import type { VerifyResult } from '../verify/index.ts';
import type { KudoUsage } from './usage.ts';
import { verifyVerdict, type PackagePolicy } from './verify-verdict.ts';
import { namespacedName } from '../../kube/index.ts';
import { deadlineSignal } from '../../kube/index.ts';

/** `package verify` of one OperatorVersion; the render pool in production. */
export type OperatorVersionVerifier = (
  operatorVersion: OperatorVersion,
  namespaceManifest: string | undefined,
  signal: AbortSignal,
) => Promise<VerifyResult>;

export interface OperatorSource {
  /** The Operator, or undefined when it does not exist. */
  get(namespace: string, name: string, signal: AbortSignal): Promise<Operator | undefined>;
}

export interface OperatorVersionValidatorOptions {
  readonly verify: OperatorVersionVerifier;
  /** Where the Operator's namespaceManifest comes from (the one template that may be a Namespace). */
  readonly operators: OperatorSource;
  readonly usage: KudoUsage;
  /** What a verify error does: `warn` (admit, as KUDO does; the default) or `strict` (refuse). */
  readonly policy?: PackagePolicy;
  /** `warn` only: verification longer than this admits with a warning. Default 3 s (the handler has 4.5 s). */
  readonly warnBudgetMs?: number;
}

/** Marks Planwright's webhook probe, which this webhook always refuses. */
export const WEBHOOK_PROBE_ANNOTATION = 'planwright.dev/webhook-probe';

/** Instances named in a message; the rest are counted. */
const MAX_NAMED = 10;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `namespace/name` of the object in the request, from its metadata or the request. */
function label(
  object: Record<string, unknown>,
  request: { namespace?: string; name?: string },
): string {
  const meta = isRecord(object['metadata']) ? object['metadata'] : {};
  const ns = typeof meta['namespace'] === 'string' ? meta['namespace'] : (request.namespace ?? '');
  const name = typeof meta['name'] === 'string' ? meta['name'] : (request.name ?? '');
  return `${ns}/${name}`;
}

/** `ns/a, ns/b (being deleted) and 3 more`. */
export function nameInstances(instances: readonly Instance[]): string {
  const names = instances
    .map(
      (i) =>
        `${namespacedName(i.metadata)}${i.metadata.deletionTimestamp ? ' (being deleted)' : ''}`,
    )
    .sort();
  const shown = names.slice(0, MAX_NAMED).join(', ');
  return names.length > MAX_NAMED ? `${shown} and ${names.length - MAX_NAMED} more` : shown;
}

function deleteCommands(instances: readonly Instance[]): string {
  const first = instances.find((i) => !i.metadata.deletionTimestamp) ?? instances[0];
  return first
    ? `kubectl delete instance ${first.metadata.name ?? ''} -n ${first.metadata.namespace ?? ''}`
    : '';
}

/** A problem of a lookup: the webhook cannot tell, so it refuses (failing closed) and says so. */
function lookupFailed(what: string, err: unknown): AdmissionResult {
  return denyInternal(`${what}: ${err instanceof Error ? err.message : String(err)}`);
}

function truncate(text: string, max = 240): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What a step of the review found: a value to go on with, or the answer it already decided. */
type Step<T> = { readonly value: T } | { readonly answer: AdmissionResult };

/** The OperatorVersion a review is about, and what its messages call it. */
interface Submitted {
  readonly ov: OperatorVersion;
  readonly ovLabel: string;
  readonly namespace: string;
}

/** DELETE of an OperatorVersion that Instances still use is refused, naming them. */
async function refuseDeletionInUse(
  usage: KudoUsage,
  request: AdmissionRequest,
  { signal, logger }: AdmissionContext,
): Promise<AdmissionResult> {
  const old = request.oldObject;
  if (!isRecord(old)) return allow(); // nothing to judge: the apiserver deletes nothing
  const ovLabel = label(old, request);
  const [namespace = '', name = ''] = ovLabel.split('/');
  let users: Instance[];
  try {
    users = await usage.instancesUsing({ namespace, name }, signal);
  } catch (err) {
    return lookupFailed(`cannot tell whether Instances use OperatorVersion ${ovLabel}`, err);
  }
  if (users.length === 0) return allow();
  logger.info(
    { operatorVersion: ovLabel, users: users.length },
    'OperatorVersion deletion refused: in use',
  );
  return denyForbidden(
    `OperatorVersion ${ovLabel} is used by ${users.length === 1 ? 'Instance' : `${users.length} Instances`} ${nameInstances(users)}: deleting it would leave them without their plans (their cleanup too). Delete or upgrade the Instances first (${deleteCommands(users)}), then delete the OperatorVersion.`,
  );
}

/** The OperatorVersion of a CREATE/UPDATE, or the refusal of an object that is none (or the probe). */
function readSubmitted(request: AdmissionRequest): Step<Submitted> {
  const object = request.object;
  if (!isRecord(object) || !isRecord(object['metadata'])) {
    return {
      answer: denyInvalid('the request carries no OperatorVersion object', [
        { field: 'metadata', message: 'required', reason: 'FieldValueRequired' },
      ]),
    };
  }
  if (object['spec'] !== undefined && object['spec'] !== null && !isRecord(object['spec'])) {
    return {
      answer: denyInvalid('spec must be a map', [
        { field: 'spec', message: 'must be a map', reason: 'FieldValueInvalid' },
      ]),
    };
  }
  const ov = object as unknown as OperatorVersion;
  const ovLabel = label(object, request);
  if (ov.metadata.annotations?.[WEBHOOK_PROBE_ANNOTATION] !== undefined) {
    // Planwright's own probe (src/cli/webhook-probe.ts): the answer proves the API server
    // calls this webhook, and the object is never stored, dry run or not.
    return {
      answer: denyForbidden(
        `OperatorVersion ${ovLabel} carries the ${WEBHOOK_PROBE_ANNOTATION} annotation: it is Planwright's webhook probe and is never stored. Remove the annotation to create a real OperatorVersion.`,
      ),
    };
  }
  const namespace = ov.metadata.namespace ?? request.namespace ?? '';
  return { value: { ov, ovLabel, namespace } };
}

/** An UPDATE that changes only finalizers, labels or annotations: the package did not change. */
function specUnchanged(request: AdmissionRequest, ov: OperatorVersion): boolean {
  if (request.operation !== 'UPDATE' || !isRecord(request.oldObject)) return false;
  const old = request.oldObject as unknown as OperatorVersion;
  return jsonEqual(ov.spec ?? {}, old.spec ?? {});
}

/** The namespaceManifest of the OperatorVersion's Operator (the one template that may be a Namespace). */
async function readNamespaceManifest(
  operators: OperatorSource,
  { ov, namespace }: Submitted,
  signal: AbortSignal,
): Promise<Step<string | undefined>> {
  const operatorName = ov.spec?.operator?.name;
  if (typeof operatorName !== 'string' || operatorName === '') return { value: undefined };
  try {
    const operator = await operators.get(namespace, operatorName, signal);
    const manifest = operator?.spec?.namespaceManifest;
    return { value: typeof manifest === 'string' && manifest !== '' ? manifest : undefined };
  } catch (err) {
    return {
      answer: lookupFailed(
        `cannot read Operator ${namespace}/${operatorName} (its namespaceManifest)`,
        err,
      ),
    };
  }
}

/** How a review verifies: the validator's options, its policy, and the request's signal. */
interface VerifyRun {
  readonly options: OperatorVersionValidatorOptions;
  readonly policy: PackagePolicy;
  readonly signal: AbortSignal;
}

/**
 * `package verify` of the OperatorVersion. Admitting does not depend on the verdict unless
 * strict: a verification that does not finish in time (a cold worker on a busy node) must not
 * become a refusal (the server's deadline answers 500, which failurePolicy Fail turns into
 * one), so under `warn` it runs within its own budget and admits with a warning past it.
 */
async function verifyWithinBudget(
  run: VerifyRun,
  submitted: Submitted,
  namespaceManifest: string | undefined,
): Promise<Step<VerifyResult>> {
  const { options, policy, signal } = run;
  const budgetMs = options.warnBudgetMs ?? 3_000;
  const budget = policy === 'warn' ? deadlineSignal(budgetMs, signal) : undefined;
  try {
    return {
      value: await options.verify(submitted.ov, namespaceManifest, budget?.signal ?? signal),
    };
  } catch (err) {
    if (budget?.signal.aborted && !signal.aborted) {
      return {
        answer: allow({
          warnings: [
            `OperatorVersion ${submitted.ovLabel} was admitted without package verification: it did not finish within ${budgetMs} ms. Check the package with kubectl kudo package verify <folder>.`,
          ],
        }),
      };
    }
    return { answer: answerVerifyFailure(err, submitted.ovLabel, policy) };
  } finally {
    budget?.clear();
  }
}

/** The answer when the verifier throws: the object is unreadable, or verifying hit a limit. */
function answerVerifyFailure(
  err: unknown,
  ovLabel: string,
  policy: PackagePolicy,
): AdmissionResult {
  if (err instanceof RenderError) {
    // The verifier itself could not read the object: neither can the engine.
    return denyInvalid(
      `OperatorVersion ${ovLabel} cannot be read: ${err.message}. Fix the package (kubectl kudo package verify <folder>) and apply it again.`,
      [{ field: 'spec', message: err.message, reason: 'FieldValueInvalid' }],
    );
  }
  if (err instanceof RenderLimitError) {
    // Past the deadline or the heap limit: the templates still render bounded at run time
    // (a plan they break ends FATAL_ERROR), so only strict admission refuses.
    const text = `OperatorVersion ${ovLabel} could not be verified: ${err.message}. A template that loops or builds huge values fails its plan; check the package with kubectl kudo package verify <folder>.`;
    if (policy === 'warn') return allow({ warnings: [text] });
    return denyInvalid(text, [
      { field: 'spec.templates', message: err.message, reason: 'FieldValueInvalid' },
    ]);
  }
  throw err; // a failure of the pool itself: the server answers 500 naming the webhook
}

/** An admitted change of spec warns, first, about the Instances whose next plan runs it. */
async function warnAboutUsers(
  usage: KudoUsage,
  verdict: AdmissionResult,
  { ov, ovLabel, namespace }: Submitted,
  signal: AbortSignal,
): Promise<AdmissionResult> {
  let users: Instance[] = [];
  try {
    users = await usage.instancesUsing({ namespace, name: ov.metadata.name ?? '' }, signal);
  } catch (err) {
    // Only a warning depends on it: admit, and say that it could not be checked.
    return allow({
      warnings: [
        ...verdict.warnings,
        `could not check which Instances use OperatorVersion ${ovLabel}: ${err instanceof Error ? err.message : String(err)}`,
      ],
    });
  }
  if (users.length === 0) return verdict;
  return allow({
    warnings: [
      truncate(
        `OperatorVersion ${ovLabel} is used by ${nameInstances(users)}: their next plan runs with the changed spec. Prefer publishing a new version and upgrading (kubectl kudo upgrade).`,
        1000,
      ),
      ...verdict.warnings,
    ],
  });
}

export function operatorVersionValidator(
  options: OperatorVersionValidatorOptions,
): AdmissionHandler {
  const policy = options.policy ?? 'warn';
  return async (request, context) => {
    const { signal } = context;
    if (request.subResource) return allow();
    if (request.operation === 'DELETE') return refuseDeletionInUse(options.usage, request, context);
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow();
    const submitted = readSubmitted(request);
    if ('answer' in submitted) return submitted.answer;
    if (specUnchanged(request, submitted.value.ov)) return allow();
    const manifest = await readNamespaceManifest(options.operators, submitted.value, signal);
    if ('answer' in manifest) return manifest.answer;
    const run = { options, policy, signal };
    const verified = await verifyWithinBudget(run, submitted.value, manifest.value);
    if ('answer' in verified) return verified.answer;
    const verdict = verifyVerdict(submitted.value.ovLabel, verified.value, policy);
    if (verdict.kind === 'deny' || request.operation !== 'UPDATE') return verdict;
    return warnAboutUsers(options.usage, verdict, submitted.value, signal);
  };
}

export interface OperatorValidatorOptions {
  readonly usage: KudoUsage;
}

/** DELETE of an Operator whose OperatorVersions Instances still use is refused. */
export function operatorValidator(options: OperatorValidatorOptions): AdmissionHandler {
  return async (request, { signal, logger }) => {
    if (request.subResource || request.operation !== 'DELETE') return allow();
    const old = request.oldObject;
    if (!isRecord(old)) return allow();
    const opLabel = label(old, request);
    const [namespace = '', name = ''] = opLabel.split('/');
    let users: Instance[] = [];
    try {
      for (const ov of await options.usage.operatorVersionsOf(namespace, name, signal)) {
        users.push(
          ...(await options.usage.instancesUsing(
            { namespace, name: ov.metadata.name ?? '' },
            signal,
          )),
        );
      }
    } catch (err) {
      return lookupFailed(`cannot tell whether Instances use Operator ${opLabel}`, err);
    }
    users = [...new Map(users.map((i) => [namespacedName(i.metadata), i])).values()];
    if (users.length === 0) return allow();
    logger.info({ operator: opLabel, users: users.length }, 'Operator deletion refused: in use');
    return denyForbidden(
      `Operator ${opLabel} is used by ${users.length === 1 ? 'Instance' : `${users.length} Instances`} ${nameInstances(users)} (through its OperatorVersions): deleting it would remove what they run. Delete the Instances first (${deleteCommands(users)}), then the Operator.`,
    );
  };
}
