/**
 * AdmissionReview v1 types (only the fields Planwright reads or writes) and the parser that
 * turns an untrusted request body into a typed request or an {@link AdmissionInputError}.
 *
 * See examples/api/server.ts.
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

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A short description of a wrong value for a 400 message (never the value itself). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}

/** A string's first characters, quoted, or what the value is: user input is never echoed whole. */
function shown(value: unknown): string {
  if (typeof value !== 'string') return kindOf(value);
  return value.length > 40
    ? `${JSON.stringify(value.slice(0, 40)).slice(0, -1)}…"`
    : JSON.stringify(value);
}

function wrong(field: string, wanted: string, value: unknown): AdmissionInputError {
  return new AdmissionInputError(
    `AdmissionReview field ${field} must be ${wanted}, got ${kindOf(value)}`,
    400,
  );
}

/** An absent field, or a string (empty counts as absent). */
function optionalString(
  record: Record<string, unknown>,
  key: string,
  field: string,
): string | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw wrong(field, 'a string', value);
  return value.length > 0 ? value : undefined;
}

/** An absent field ({}), or a map. */
function optionalRecord(
  record: Record<string, unknown>,
  key: string,
  field: string,
): Record<string, unknown> {
  const value = record[key];
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw wrong(field, 'a map', value);
  return value;
}

function optionalStringList(record: Record<string, unknown>, key: string, field: string): string[] {
  const value = record[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw wrong(field, 'a list of strings', value);
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string') throw wrong(`${field}[${i}]`, 'a string', item);
  });
  return value as string[];
}

/** An absent object (null), or a map: `object` and `oldObject`. */
function optionalObject(
  record: Record<string, unknown>,
  key: string,
  field: string,
): AdmissionObject | null {
  const value = record[key];
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) throw wrong(field, 'an object (a map)', value);
  return value;
}

function gvk(record: Record<string, unknown>, field: string): GroupVersionKind {
  return {
    group: optionalString(record, 'group', `${field}.group`) ?? '',
    version: optionalString(record, 'version', `${field}.version`) ?? '',
    kind: optionalString(record, 'kind', `${field}.kind`) ?? '',
  };
}

/** The uid of a body, when one can be found, so even a rejected review echoes it. */
export function reviewUid(body: unknown): string {
  if (!isRecord(body)) return '';
  const request = body['request'];
  return isRecord(request) ? str(request['uid']) : '';
}

/**
 * Validates every field of an AdmissionReview that the server or a handler reads, before
 * anything uses it: a field of the wrong shape is a 400 naming it (never a handler crashing
 * on it). Absent optional fields get defaults, and fields we do not read are ignored: the
 * apiserver is the only legitimate sender and a future field must not break us.
 */
export function parseAdmissionReview(body: unknown): AdmissionRequest {
  if (!isRecord(body)) {
    throw new AdmissionInputError('body must be a JSON object (an AdmissionReview)', 400);
  }
  if (body['kind'] !== undefined && body['kind'] !== 'AdmissionReview') {
    throw new AdmissionInputError(`kind must be AdmissionReview, got ${shown(body['kind'])}`, 400);
  }
  const apiVersion = body['apiVersion'];
  if (apiVersion !== undefined && apiVersion !== ADMISSION_REVIEW_V1) {
    throw new AdmissionInputError(
      `apiVersion ${shown(apiVersion)} is not supported; register the webhook with admissionReviewVersions: [v1]`,
      400,
    );
  }
  const request = body['request'];
  if (!isRecord(request)) {
    throw new AdmissionInputError('AdmissionReview has no request', 400);
  }
  const uid = request['uid'];
  if (typeof uid !== 'string' || uid.length === 0) {
    throw new AdmissionInputError(
      uid === undefined || uid === ''
        ? 'AdmissionReview request has no uid'
        : `AdmissionReview field request.uid must be a string, got ${kindOf(uid)}`,
      400,
    );
  }
  const operation = request['operation'];
  if (typeof operation !== 'string' || !OPERATIONS.has(operation)) {
    throw new AdmissionInputError(
      `AdmissionReview field request.operation must be CREATE, UPDATE, DELETE or CONNECT, got ${shown(operation ?? null)}`,
      400,
    );
  }
  const kind = gvk(optionalRecord(request, 'kind', 'request.kind'), 'request.kind');
  const resourceRecord = optionalRecord(request, 'resource', 'request.resource');
  const resource: GroupVersionResource = {
    group: optionalString(resourceRecord, 'group', 'request.resource.group') ?? '',
    version: optionalString(resourceRecord, 'version', 'request.resource.version') ?? '',
    resource: optionalString(resourceRecord, 'resource', 'request.resource.resource') ?? '',
  };
  const userInfo = optionalRecord(request, 'userInfo', 'request.userInfo');
  const dryRun = request['dryRun'];
  if (dryRun !== undefined && dryRun !== null && typeof dryRun !== 'boolean') {
    throw wrong('request.dryRun', 'a boolean', dryRun);
  }
  const subResource = optionalString(request, 'subResource', 'request.subResource');
  const name = optionalString(request, 'name', 'request.name');
  const namespace = optionalString(request, 'namespace', 'request.namespace');
  const username = optionalString(userInfo, 'username', 'request.userInfo.username');
  const userUid = optionalString(userInfo, 'uid', 'request.userInfo.uid');
  return {
    uid,
    kind,
    resource,
    subResource,
    name,
    namespace,
    operation: operation as AdmissionOperation,
    userInfo: {
      username,
      uid: userUid,
      groups: optionalStringList(userInfo, 'groups', 'request.userInfo.groups'),
    },
    object: optionalObject(request, 'object', 'request.object'),
    oldObject: optionalObject(request, 'oldObject', 'request.oldObject'),
    dryRun: dryRun === true,
  };
}
