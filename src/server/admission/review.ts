/**
 * AdmissionReview v1 types (only the fields Planwright reads or writes) and the parser that
 * turns an untrusted request body into a typed request or an {@link AdmissionInputError}.
 *
 * @example
 * const request = parseAdmissionReview(JSON.parse(body)); // throws AdmissionInputError (400)
 */
import { AdmissionInputError } from '../errors.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface AdmissionUserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A Kubernetes object as it arrives in a review: unvalidated JSON. */
export type AdmissionObject = Readonly<Record<string, unknown>>;

export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: AdmissionOperation;
  readonly userInfo: AdmissionUserInfo;
  readonly object?: AdmissionObject | null;
  readonly oldObject?: AdmissionObject | null;
  readonly dryRun: boolean;
}

export interface StatusCause {
  /** Field path as kubectl shows it, e.g. `spec.parameters.SIZE`. */
  readonly field?: string;
  readonly message: string;
  /** A machine-readable cause type, e.g. `FieldValueForbidden`; optional. */
  readonly reason?: string;
}

export interface AdmissionStatus {
  readonly code: number;
  readonly reason?: string;
  readonly message: string;
  readonly details?: { readonly causes: readonly StatusCause[] };
}

export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: AdmissionStatus;
  readonly patchType?: 'JSONPatch';
  /** base64 of the JSON patch. */
  readonly patch?: string;
  readonly warnings?: readonly string[];
}

export interface AdmissionReviewResponse {
  readonly apiVersion: string;
  readonly kind: 'AdmissionReview';
  readonly response: AdmissionResponse;
}

/** The apiVersion the server answers to; the apiserver only sends v1 to `admissionReviewVersions: [v1]`. */
export const ADMISSION_REVIEW_V1 = 'admission.k8s.io/v1';

const OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The uid of a body, when one can be found, so even a rejected review echoes it. */
export function reviewUid(body: unknown): string {
  if (!isRecord(body)) return '';
  const request = body['request'];
  return isRecord(request) ? str(request['uid']) : '';
}

/**
 * Validates the parts of an AdmissionReview the server relies on. Fields a handler may not
 * need (userInfo, subResource) are defaulted rather than rejected: the apiserver is the only
 * legitimate sender and a future field must not break us.
 */
export function parseAdmissionReview(body: unknown): AdmissionRequest {
  if (!isRecord(body)) {
    throw new AdmissionInputError('body must be a JSON object (an AdmissionReview)', 400);
  }
  if (body['kind'] !== undefined && body['kind'] !== 'AdmissionReview') {
    throw new AdmissionInputError(
      `kind must be AdmissionReview, got ${JSON.stringify(body['kind'])}`,
      400,
    );
  }
  const apiVersion = body['apiVersion'];
  if (apiVersion !== undefined && apiVersion !== ADMISSION_REVIEW_V1) {
    throw new AdmissionInputError(
      `apiVersion ${JSON.stringify(apiVersion)} is not supported; register the webhook with admissionReviewVersions: [v1]`,
      400,
    );
  }
  const request = body['request'];
  if (!isRecord(request)) {
    throw new AdmissionInputError('AdmissionReview has no request', 400);
  }
  const uid = request['uid'];
  if (typeof uid !== 'string' || uid.length === 0) {
    throw new AdmissionInputError('AdmissionReview request has no uid', 400);
  }
  const operation = request['operation'];
  if (typeof operation !== 'string' || !OPERATIONS.has(operation)) {
    throw new AdmissionInputError(
      `AdmissionReview request has no valid operation (got ${JSON.stringify(operation ?? null)})`,
      400,
    );
  }
  const kind = isRecord(request['kind']) ? request['kind'] : {};
  const resource = isRecord(request['resource']) ? request['resource'] : {};
  const userInfo = isRecord(request['userInfo']) ? request['userInfo'] : {};
  const object = request['object'];
  const oldObject = request['oldObject'];
  return {
    uid,
    kind: { group: str(kind['group']), version: str(kind['version']), kind: str(kind['kind']) },
    resource: {
      group: str(resource['group']),
      version: str(resource['version']),
      resource: str(resource['resource']),
    },
    subResource: optionalString(request['subResource']),
    name: optionalString(request['name']),
    namespace: optionalString(request['namespace']),
    operation: operation as AdmissionOperation,
    userInfo: {
      username: optionalString(userInfo['username']),
      uid: optionalString(userInfo['uid']),
      groups: Array.isArray(userInfo['groups'])
        ? userInfo['groups'].filter((g): g is string => typeof g === 'string')
        : [],
    },
    object: isRecord(object) ? object : null,
    oldObject: isRecord(oldObject) ? oldObject : null,
    dryRun: request['dryRun'] === true,
  };
}
