import { describe, expect, it } from '@jest/globals';
import {
  AdmissionInputError,
  allow,
  denyForbidden,
  denyInvalid,
  parseAdmissionReview,
  patch,
  toAdmissionResponse,
} from '../../../src/server/index.ts';
import { admissionReview } from '../../support/admission.ts';

describe('parseAdmissionReview', () => {
  it('reads the fields handlers use, including dryRun and oldObject', () => {
    const request = parseAdmissionReview(
      admissionReview({
        uid: 'u-1',
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        name: 'cm',
        namespace: 'ns',
        operation: 'UPDATE',
        userInfo: { username: 'alice', groups: ['devs'] },
        object: { metadata: { name: 'cm' } },
        oldObject: { metadata: { name: 'cm' } },
        dryRun: true,
      }),
    );
    expect(request).toMatchObject({
      uid: 'u-1',
      kind: { kind: 'ConfigMap', version: 'v1' },
      resource: { resource: 'configmaps' },
      operation: 'UPDATE',
      name: 'cm',
      namespace: 'ns',
      userInfo: { username: 'alice', groups: ['devs'] },
      dryRun: true,
    });
    expect(request.oldObject).toEqual({ metadata: { name: 'cm' } });
  });

  it.each([
    ['a non-object body', 'hello'],
    ['an array', []],
    ['no request', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }],
    ['no uid', admissionReview({ operation: 'CREATE' })],
    ['an empty uid', admissionReview({ uid: '', operation: 'CREATE' })],
    ['no operation', admissionReview({ uid: 'x' })],
    ['an unknown operation', admissionReview({ uid: 'x', operation: 'PATCH' })],
    [
      'v1beta1',
      { apiVersion: 'admission.k8s.io/v1beta1', request: { uid: 'x', operation: 'CREATE' } },
    ],
    ['another kind', { kind: 'Pod', request: { uid: 'x', operation: 'CREATE' } }],
  ])('rejects %s with a 400 input error', (_what, body) => {
    let caught: unknown;
    try {
      parseAdmissionReview(body);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AdmissionInputError);
    expect((caught as AdmissionInputError).status).toBe(400);
  });

  it.each([
    ['request.uid', { uid: 7, operation: 'CREATE' }],
    ['request.kind', { uid: 'x', operation: 'CREATE', kind: 'Instance' }],
    ['request.kind.kind', { uid: 'x', operation: 'CREATE', kind: { kind: ['Instance'] } }],
    ['request.resource.group', { uid: 'x', operation: 'CREATE', resource: { group: 1 } }],
    ['request.name', { uid: 'x', operation: 'CREATE', name: { a: 1 } }],
    ['request.namespace', { uid: 'x', operation: 'CREATE', namespace: 5 }],
    ['request.subResource', { uid: 'x', operation: 'CREATE', subResource: true }],
    ['request.userInfo', { uid: 'x', operation: 'CREATE', userInfo: 'alice' }],
    ['request.userInfo.username', { uid: 'x', operation: 'CREATE', userInfo: { username: 1 } }],
    ['request.userInfo.groups', { uid: 'x', operation: 'CREATE', userInfo: { groups: 'a' } }],
    [
      'request.userInfo.groups[1]',
      { uid: 'x', operation: 'CREATE', userInfo: { groups: ['a', 7] } },
    ],
    ['request.object', { uid: 'x', operation: 'CREATE', object: [1, 2] }],
    ['request.oldObject', { uid: 'x', operation: 'UPDATE', oldObject: 'old' }],
    ['request.dryRun', { uid: 'x', operation: 'CREATE', dryRun: 'yes' }],
    ['request.operation', { uid: 'x', operation: 42 }],
  ])('names the wrong-shaped field %s in a 400', (field, request) => {
    let caught: unknown;
    try {
      parseAdmissionReview(admissionReview(request));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AdmissionInputError);
    expect((caught as AdmissionInputError).status).toBe(400);
    expect((caught as Error).message).toContain(`${field} must be`);
  });

  it('quotes at most a short excerpt of a wrong value', () => {
    let caught: unknown;
    try {
      parseAdmissionReview(admissionReview({ uid: 'x', operation: 'x'.repeat(100_000) }));
    } catch (err) {
      caught = err;
    }
    expect((caught as Error).message.length).toBeLessThan(200);
  });
});

describe('result helpers', () => {
  it('allow echoes the uid and carries warnings', () => {
    expect(toAdmissionResponse('u', allow({ warnings: ['careful'] }))).toEqual({
      uid: 'u',
      allowed: true,
      warnings: ['careful'],
    });
    expect(toAdmissionResponse('u', allow())).toEqual({ uid: 'u', allowed: true });
  });

  it('patch is base64 JSON with patchType JSONPatch', () => {
    const ops = [{ op: 'add' as const, path: '/metadata/labels/a', value: 'b' }];
    const response = toAdmissionResponse('u', patch(ops));
    expect(response.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8'))).toEqual(ops);
    expect(response.allowed).toBe(true);
  });

  it('an empty patch is a plain allow', () => {
    expect(toAdmissionResponse('u', patch([]))).toEqual({ uid: 'u', allowed: true });
  });

  it('denyInvalid is 422 Invalid with field causes', () => {
    expect(
      toAdmissionResponse('u', denyInvalid('nope', [{ field: 'spec.x', message: 'frozen' }])),
    ).toEqual({
      uid: 'u',
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: 'nope',
        details: { causes: [{ field: 'spec.x', message: 'frozen' }] },
      },
    });
  });

  it('denyForbidden is 403 Forbidden', () => {
    expect(toAdmissionResponse('u', denyForbidden('no'))).toMatchObject({
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: 'no' },
    });
  });
});
