/**
 * What a handler returns, and how it becomes an AdmissionReview response. Handlers build
 * small results with the helpers below instead of AdmissionReview JSON.
 *
 * See examples/api/server.ts.
 */
import { boundStatus, boundWarnings } from './bounds.ts';
import type { AdmissionResponse, AdmissionStatus, StatusCause } from './review.ts';

export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

export interface ResultOptions {
  /** Short strings; kubectl prints each as `Warning: …`. */
  readonly warnings?: readonly string[];
}

export type AdmissionResult =
  | { readonly kind: 'allow'; readonly warnings: readonly string[] }
  | {
      readonly kind: 'patch';
      readonly patch: readonly JsonPatchOperation[];
      readonly warnings: readonly string[];
    }
  | {
      readonly kind: 'deny';
      readonly status: AdmissionStatus;
      readonly warnings: readonly string[];
    };

export function allow(options: ResultOptions = {}): AdmissionResult {
  return { kind: 'allow', warnings: options.warnings ?? [] };
}

/** Allows the request with changes; only a mutating handler may return this. */
export function patch(
  operations: readonly JsonPatchOperation[],
  options: ResultOptions = {},
): AdmissionResult {
  if (operations.length === 0) return allow(options);
  return { kind: 'patch', patch: operations, warnings: options.warnings ?? [] };
}

/**
 * 422 `Invalid` with field causes: `kubectl edit` reopens the editor with the user's edits and
 * a `# * <field>: <message>` line per cause.
 */
export function denyInvalid(
  message: string,
  causes: readonly StatusCause[],
  options: ResultOptions = {},
): AdmissionResult {
  return deny({ code: 422, reason: 'Invalid', message, details: { causes } }, options);
}

/** 403 `Forbidden`: the change is well-formed but not allowed now. */
export function denyForbidden(message: string, options: ResultOptions = {}): AdmissionResult {
  return deny({ code: 403, reason: 'Forbidden', message }, options);
}

/** Any denial status; prefer {@link denyInvalid} or {@link denyForbidden}. */
export function deny(status: AdmissionStatus, options: ResultOptions = {}): AdmissionResult {
  return { kind: 'deny', status, warnings: options.warnings ?? [] };
}

/** A denial for a failure inside the server or a handler (500). */
export function denyInternal(message: string): AdmissionResult {
  return deny({ code: 500, reason: 'InternalError', message });
}

/**
 * Turns a result into the response body's `response`, echoing `uid`; causes, warnings and
 * messages bounded (see bounds.ts).
 */
export function toAdmissionResponse(uid: string, result: AdmissionResult): AdmissionResponse {
  const warnings = result.warnings.length > 0 ? { warnings: boundWarnings(result.warnings) } : {};
  switch (result.kind) {
    case 'allow':
      return { uid, allowed: true, ...warnings };
    case 'patch':
      return {
        uid,
        allowed: true,
        patchType: 'JSONPatch',
        patch: Buffer.from(JSON.stringify(result.patch)).toString('base64'),
        ...warnings,
      };
    case 'deny':
      return { uid, allowed: false, status: boundStatus(result.status), ...warnings };
  }
}
