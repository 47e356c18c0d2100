import { describe, expect, it } from '@jest/globals';
import { createsAsApplied } from '../../../src/kube/apply.ts';
import {
  fieldsCovered,
  fieldsOf,
  fieldsUnion,
  ownershipUpgrade,
  type FieldsV1,
  type ManagedFieldsEntry,
} from '../../../src/kube/ownership.ts';

const plain = (v: FieldsV1): unknown => JSON.parse(JSON.stringify(v));
const uid = 'k:{"uid":"u1"}';
const created: ManagedFieldsEntry = {
  manager: 'planwright',
  operation: 'Update',
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  time: 't1',
  fieldsV1: {
    'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
    'f:metadata': { 'f:ownerReferences': { '.': {}, [uid]: { '.': {}, 'f:uid': {} } } },
  },
};

describe('fieldsCovered', () => {
  it('ignores "." members and treats a leaf as owning everything below it', () => {
    expect(
      fieldsCovered(
        {
          'f:data': { 'f:a': {}, 'f:b': {} },
          'f:metadata': { 'f:ownerReferences': { [uid]: {} } },
        },
        created.fieldsV1 ?? {},
      ),
    ).toBe(true);
  });
  it('a member missing, or a leaf where the other owns parts, is not covered', () => {
    expect(fieldsCovered({ 'f:data': { 'f:a': {} } }, { 'f:data': { 'f:b': {} } })).toBe(false);
    expect(fieldsCovered({ 'f:data': { 'f:a': {} } }, { 'f:data': {} })).toBe(false);
  });
});

describe('fieldsUnion', () => {
  it('merges nested sets without changing its inputs', () => {
    const a: FieldsV1 = { 'f:data': { 'f:a': {} } };
    const b: FieldsV1 = { 'f:data': { 'f:b': {} }, 'f:x': {} };
    expect(plain(fieldsUnion(a, b))).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:x': {} });
    expect(a).toEqual({ 'f:data': { 'f:a': {} } });
  });
});

describe('fieldsOf', () => {
  it('names object members and owner references by uid; other lists are leaves', () => {
    expect(
      plain(
        fieldsOf({
          data: { a: '1' },
          metadata: { ownerReferences: [{ uid: 'u1' }], finalizers: ['f'] },
        }),
      ),
    ).toEqual({
      'f:data': { 'f:a': {} },
      'f:metadata': { 'f:ownerReferences': { [uid]: {} }, 'f:finalizers': {} },
    });
  });
});

describe('ownershipUpgrade', () => {
  const applyEntry: ManagedFieldsEntry = {
    manager: 'planwright',
    operation: 'Apply',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    time: 't2',
    fieldsV1: { 'f:data': { 'f:a': {} } },
  };
  const other: ManagedFieldsEntry = { manager: 'someone', operation: 'Update', fieldsV1: {} };
  const status: ManagedFieldsEntry = { ...created, subresource: 'status' };

  it('nothing to do without our Update entry of the object itself', () => {
    expect(ownershipUpgrade([applyEntry, other, status], 'planwright', undefined)).toBeUndefined();
    expect(ownershipUpgrade(undefined, 'planwright', undefined)).toBeUndefined();
  });
  it('nothing to do when what covers holds every field of the Update entry', () => {
    expect(
      ownershipUpgrade(
        [created],
        'planwright',
        fieldsOf({ data: { a: 1, b: 2 }, metadata: { ownerReferences: [{ uid: 'u1' }] } }),
      ),
    ).toBeUndefined();
  });
  it('merges the Update entry into the Apply entry, keeping every other entry in place', () => {
    const out = ownershipUpgrade([other, applyEntry, created, status], 'planwright', {
      'f:data': { 'f:a': {} },
    });
    expect(out?.map((e) => `${e.manager}/${e.operation}/${e.subresource ?? ''}`)).toEqual([
      'someone/Update/',
      'planwright/Apply/',
      'planwright/Update/status',
    ]);
    expect(out?.[1]?.time).toBe('t2');
    expect(plain(out?.[1]?.fieldsV1 ?? {})).toEqual({
      'f:data': { 'f:a': {}, '.': {}, 'f:b': {} },
      'f:metadata': { 'f:ownerReferences': { '.': {}, [uid]: { '.': {}, 'f:uid': {} } } },
    });
  });
  it('turns the Update entry into an Apply entry when there is none; always when asked', () => {
    const out = ownershipUpgrade([created], 'planwright', undefined);
    expect(out).toEqual([{ ...created, operation: 'Apply', fieldsV1: expect.anything() }]);
  });
});

describe('createsAsApplied', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' } };
  it('ConfigMaps and Secrets without stringData, nulls, finalizers or several owners', () => {
    expect(createsAsApplied(cm)).toBe(true);
    expect(createsAsApplied({ ...cm, kind: 'Secret' })).toBe(true);
    expect(createsAsApplied({ ...cm, kind: 'Secret', stringData: { a: 'b' } })).toBe(false);
    expect(createsAsApplied({ ...cm, kind: 'Service' })).toBe(false);
    expect(createsAsApplied({ ...cm, apiVersion: 'example.com/v1' })).toBe(false);
    expect(createsAsApplied({ ...cm, data: { a: null } })).toBe(false);
    expect(createsAsApplied({ ...cm, metadata: { name: 'x', finalizers: ['f'] } })).toBe(false);
    expect(
      createsAsApplied({
        ...cm,
        metadata: { name: 'x', ownerReferences: [{ uid: 'a' }, { uid: 'b' }] },
      }),
    ).toBe(false);
  });
});
