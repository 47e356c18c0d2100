import { describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import {
  advance,
  caBundle,
  dueSteps,
  validatePolicy,
  type RotationPolicy,
} from '../../../../src/server/tls/rotation.ts';
import { issueCertificate } from '../../../../src/pki/index.ts';

const identity = {
  commonName: 'svc.ns.svc',
  dnsNames: ['svc', 'svc.ns.svc'],
  ipAddresses: ['127.0.0.1'],
};
const policy: RotationPolicy = {
  caValidityMs: 100_000,
  caRenewBeforeMs: 40_000,
  caOverlapMs: 10_000,
  servingValidityMs: 20_000,
  servingRenewBeforeMs: 8_000,
};
const at = (base: Date, ms: number): Date => new Date(base.getTime() + ms);
const count = (bundle: string): number => bundle.split('BEGIN CERTIFICATE').length - 1;

describe('rotation', () => {
  const t0 = new Date();
  const created = advance(undefined, t0, policy, identity);

  it('creates a CA and a serving cert for the service names and IPs', () => {
    expect(created.steps).toEqual(['create']);
    const serving = new X509Certificate(created.material.serving.certPem);
    expect(serving.checkIssued(new X509Certificate(created.material.ca.certPem))).toBe(true);
    expect(serving.checkHost('svc.ns.svc')).toBeDefined();
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(dueSteps(created.material, t0, policy, identity)).toEqual([]);
  });

  it('renews the serving cert ahead of expiry, under the same CA', () => {
    const later = at(t0, 13_000);
    const renewed = advance(created.material, later, policy, identity);
    expect(renewed.steps).toEqual(['renew-serving']);
    expect(renewed.material.ca).toBe(created.material.ca);
    expect(renewed.material.serving.certPem).not.toBe(created.material.serving.certPem);
  });

  it('serves ECDSA P-256 keys; a stored RSA serving key is kept until its renewal, then replaced', () => {
    const keyType = (pem: string): string | undefined =>
      new X509Certificate(pem).publicKey.asymmetricKeyType;
    expect(keyType(created.material.serving.certPem)).toBe('ec');
    // A Secret written by an older release: same CA, an RSA serving key.
    const rsa = issueCertificate(created.material.ca, {
      commonName: identity.commonName,
      dnsNames: identity.dnsNames,
      ipAddresses: identity.ipAddresses,
      usage: 'server',
      validityMs: policy.servingValidityMs,
      issuedAt: t0,
    });
    const old = { ...created.material, serving: { certPem: rsa.certPem, keyPem: rsa.keyPem } };
    expect(keyType(old.serving.certPem)).toBe('rsa');
    expect(dueSteps(old, at(t0, 1_000), policy, identity)).toEqual([]);
    const renewed = advance(old, at(t0, 13_000), policy, identity);
    expect(renewed.steps).toEqual(['renew-serving']);
    expect(renewed.material.ca).toBe(old.ca);
    expect(keyType(renewed.material.serving.certPem)).toBe('ec');
  });

  it('counts validity from the clock it is given, not from when key generation finished', () => {
    // A clock far from the wall clock: expiries that followed Date.now() would miss by years.
    const past = new Date('2020-01-01T00:00:00Z');
    const { material } = advance(undefined, past, policy, identity);
    const notAfter = (pem: string): number => new Date(new X509Certificate(pem).validTo).getTime();
    expect(notAfter(material.serving.certPem)).toBe(past.getTime() + policy.servingValidityMs);
    expect(notAfter(material.ca.certPem)).toBe(past.getTime() + policy.caValidityMs);
  });

  it('re-issues when the wanted names change', () => {
    expect(dueSteps(created.material, t0, policy, { ...identity, dnsNames: ['other'] })).toEqual([
      'renew-serving',
    ]);
  });

  it('rolls the CA over: stage (two-CA bundle), promote after the overlap, drop after another', () => {
    const stageAt = at(t0, 61_000);
    const staged = advance(created.material, stageAt, policy, identity);
    expect(staged.steps).toContain('stage-next-ca');
    expect(staged.material.ca).toBe(created.material.ca);
    expect(count(caBundle(staged.material, stageAt))).toBe(2);
    const servingUnderOld = staged.material.serving.certPem;
    expect(
      new X509Certificate(servingUnderOld).checkIssued(
        new X509Certificate(created.material.ca.certPem),
      ),
    ).toBe(true);

    expect(dueSteps(staged.material, at(stageAt, 5_000), policy, identity)).not.toContain(
      'promote-next-ca',
    );
    const promoteAt = at(stageAt, 10_000);
    const promoted = advance(staged.material, promoteAt, policy, identity);
    expect(promoted.steps).toEqual(['promote-next-ca', 'renew-serving']);
    expect(promoted.material.ca.certPem).toBe(staged.material.nextCa?.certPem);
    expect(promoted.material.previousCa?.certPem).toBe(created.material.ca.certPem);
    expect(
      new X509Certificate(promoted.material.serving.certPem).checkIssued(
        new X509Certificate(promoted.material.ca.certPem),
      ),
    ).toBe(true);
    expect(count(caBundle(promoted.material, promoteAt))).toBe(2);

    const dropped = advance(promoted.material, at(promoteAt, 10_000), policy, identity);
    expect(dropped.steps).toContain('drop-previous-ca');
    expect(dropped.material.previousCa).toBeUndefined();
    // (Certificates are minted on the real clock, so only the retired CA's absence is checked.)
    expect(caBundle(dropped.material)).not.toContain(created.material.ca.certPem.trim());
    expect(caBundle(dropped.material)).toContain(promoted.material.ca.certPem.trim());
  });

  it('rejects inconsistent timings with the setting named', () => {
    expect(() => validatePolicy({ ...policy, servingRenewBeforeMs: 30_000 }, 1_000)).toThrow(
      /servingRenewBeforeMs/,
    );
    expect(() => validatePolicy(policy, 5_000)).toThrow(/checkIntervalMs/);
    expect(() => validatePolicy({ ...policy, caRenewBeforeMs: 15_000 }, 1_000)).toThrow(
      /caRenewBeforeMs/,
    );
    expect(() => validatePolicy(policy, 1_000)).not.toThrow();
  });
});
