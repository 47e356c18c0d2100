/**
 * The certificate life cycle as pure decisions: given what the Secret holds and the time,
 * which steps are due (create, renew serving, stage next CA, promote it, drop the previous
 * one), and the new material after taking them. No I/O, so every branch is unit-tested.
 *
 * CA rollover keeps the bundle valid throughout:
 *   stage   — a new CA is added to the bundle, but does not sign yet;
 *   promote — after `caOverlapMs` (the apiserver has the two-CA bundle) it signs a new serving
 *             cert; the old CA stays in the bundle as "previous" for replicas still serving the
 *             old cert;
 *   drop    — after another `caOverlapMs` (or its expiry) the previous CA leaves the bundle.
 *
 * See examples/api/server.ts.
 */
import { X509Certificate } from 'node:crypto';
import {
  certificateNotAfter,
  createCertificateAuthority,
  issueCertificate,
} from '../../pki/index.ts';
import { ServerConfigError } from '../errors.ts';

export interface KeyedCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface TlsMaterial {
  readonly ca: KeyedCertificate;
  /** Staged CA: in the bundle, not yet signing. */
  readonly nextCa?: KeyedCertificate & { readonly stagedAt: Date };
  /** Retired CA kept in the bundle while replicas may still serve a cert it signed. */
  readonly previousCa?: { readonly certPem: string; readonly retiredAt: Date };
  readonly serving: KeyedCertificate;
}

export interface RotationPolicy {
  readonly caValidityMs: number;
  /** Stage the next CA this long before the current one expires. */
  readonly caRenewBeforeMs: number;
  /** How long a staged CA waits before signing, and a retired one stays in the bundle. */
  readonly caOverlapMs: number;
  readonly servingValidityMs: number;
  /** Renew the serving certificate this long before it expires. */
  readonly servingRenewBeforeMs: number;
}

export interface ServingIdentity {
  readonly commonName: string;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

export type RotationStep =
  'create' | 'stage-next-ca' | 'promote-next-ca' | 'drop-previous-ca' | 'renew-serving';

const DAY_MS = 24 * 3600 * 1000;

export const DEFAULT_ROTATION_POLICY: RotationPolicy = {
  caValidityMs: 10 * 365 * DAY_MS,
  caRenewBeforeMs: 365 * DAY_MS,
  caOverlapMs: 7 * DAY_MS,
  servingValidityMs: 365 * DAY_MS,
  servingRenewBeforeMs: 90 * DAY_MS,
};

/** Checks the policy's internal consistency against how often replicas look at the Secret. */
export function validatePolicy(policy: RotationPolicy, checkIntervalMs: number): void {
  const positive: Array<keyof RotationPolicy> = [
    'caValidityMs',
    'caRenewBeforeMs',
    'caOverlapMs',
    'servingValidityMs',
    'servingRenewBeforeMs',
  ];
  for (const key of positive) {
    if (!Number.isFinite(policy[key]) || policy[key] <= 0) {
      throw new ServerConfigError(`must be a positive number, got ${policy[key]}`, key);
    }
  }
  if (policy.servingRenewBeforeMs >= policy.servingValidityMs) {
    throw new ServerConfigError('must be shorter than servingValidityMs', 'servingRenewBeforeMs');
  }
  if (policy.caRenewBeforeMs >= policy.caValidityMs) {
    throw new ServerConfigError('must be shorter than caValidityMs', 'caRenewBeforeMs');
  }
  // Every replica must re-read the Secret at least twice before the cert it serves expires.
  if (checkIntervalMs * 2 > policy.servingRenewBeforeMs) {
    throw new ServerConfigError(
      `must be at most half of servingRenewBeforeMs (${policy.servingRenewBeforeMs} ms)`,
      'checkIntervalMs',
    );
  }
  if (policy.caOverlapMs < checkIntervalMs) {
    throw new ServerConfigError(
      `must be at least checkIntervalMs (${checkIntervalMs} ms)`,
      'caOverlapMs',
    );
  }
  if (policy.caRenewBeforeMs < 2 * policy.caOverlapMs + checkIntervalMs) {
    throw new ServerConfigError(
      'must leave room for staging and retiring: at least 2 × caOverlapMs + checkIntervalMs',
      'caRenewBeforeMs',
    );
  }
}

/** Steps due now, in the order they are taken. */
export function dueSteps(
  material: TlsMaterial | undefined,
  now: Date,
  policy: RotationPolicy,
  identity: ServingIdentity,
): RotationStep[] {
  if (!material) return ['create'];
  const steps: RotationStep[] = [];
  const t = now.getTime();
  if (material.previousCa) {
    const retiredFor = t - material.previousCa.retiredAt.getTime();
    if (retiredFor >= policy.caOverlapMs || expired(material.previousCa.certPem, t)) {
      steps.push('drop-previous-ca');
    }
  }
  if (material.nextCa) {
    const stagedFor = t - material.nextCa.stagedAt.getTime();
    if (stagedFor >= policy.caOverlapMs || expired(material.ca.certPem, t)) {
      steps.push('promote-next-ca');
      // Promotion re-issues the serving certificate under the new CA.
      steps.push('renew-serving');
      return steps;
    }
  } else if (expiresWithin(material.ca.certPem, t, policy.caRenewBeforeMs)) {
    steps.push('stage-next-ca');
  }
  if (servingNeedsRenewal(material, t, policy, identity)) steps.push('renew-serving');
  return steps;
}

/** When the next step falls due if nothing else changes (for timing the next check). */
export function nextDue(material: TlsMaterial, policy: RotationPolicy): Date {
  const times = [
    certificateNotAfter(material.serving.certPem).getTime() - policy.servingRenewBeforeMs,
    certificateNotAfter(material.ca.certPem).getTime() - policy.caRenewBeforeMs,
  ];
  if (material.nextCa) times.push(material.nextCa.stagedAt.getTime() + policy.caOverlapMs);
  if (material.previousCa) times.push(material.previousCa.retiredAt.getTime() + policy.caOverlapMs);
  return new Date(Math.min(...times));
}

/** Takes the due steps, generating keys and certificates as needed. */
export function advance(
  material: TlsMaterial | undefined,
  now: Date,
  policy: RotationPolicy,
  identity: ServingIdentity,
): { material: TlsMaterial; steps: RotationStep[] } {
  const steps = dueSteps(material, now, policy, identity);
  if (!material) {
    const ca = newCa(identity, policy, now);
    return { material: { ca, serving: issueServing(ca, identity, policy, now) }, steps };
  }
  let next: TlsMaterial = material;
  for (const step of steps) {
    switch (step) {
      case 'drop-previous-ca': {
        next = { ca: next.ca, serving: next.serving, nextCa: next.nextCa };
        break;
      }
      case 'stage-next-ca':
        next = { ...next, nextCa: { ...newCa(identity, policy, now), stagedAt: now } };
        break;
      case 'promote-next-ca': {
        if (!next.nextCa) break;
        const { nextCa, ...rest } = next;
        next = {
          ...rest,
          ca: { certPem: nextCa.certPem, keyPem: nextCa.keyPem },
          previousCa: { certPem: next.ca.certPem, retiredAt: now },
        };
        break;
      }
      case 'renew-serving':
        next = { ...next, serving: issueServing(next.ca, identity, policy, now) };
        break;
      case 'create':
        break;
    }
  }
  return { material: next, steps };
}

/** The PEM bundle the apiserver must trust: current, staged and retired CAs still valid. */
export function caBundle(material: TlsMaterial, now: Date = new Date()): string {
  const t = now.getTime();
  const pems = [material.ca.certPem, material.nextCa?.certPem, material.previousCa?.certPem].filter(
    (pem): pem is string => pem !== undefined && !expired(pem, t),
  );
  // Never an empty bundle: an expired current CA is still better than nothing to patch in.
  return (pems.length > 0 ? pems : [material.ca.certPem]).map((p) => p.trim() + '\n').join('');
}

function newCa(identity: ServingIdentity, policy: RotationPolicy, now: Date): KeyedCertificate {
  return createCertificateAuthority({
    // forge encodes the CN as PrintableString: letters, digits, "-", "." only (no "@"), or Go rejects it.
    commonName: `${identity.commonName}-ca-${Math.floor(now.getTime() / 1000)}`,
    validityMs: policy.caValidityMs,
    issuedAt: now,
  });
}

function issueServing(
  ca: KeyedCertificate,
  identity: ServingIdentity,
  policy: RotationPolicy,
  now: Date,
): KeyedCertificate {
  const issued = issueCertificate(ca, {
    commonName: identity.commonName,
    dnsNames: identity.dnsNames,
    ipAddresses: identity.ipAddresses,
    usage: 'server',
    validityMs: policy.servingValidityMs,
    issuedAt: now,
    // Cheap handshakes for the apiserver's new connections. A Secret still holding an RSA
    // serving key keeps being served as it is, and gets an ECDSA one at its next renewal.
    keyAlgorithm: 'ecdsa-p256',
  });
  return { certPem: issued.certPem, keyPem: issued.keyPem };
}

function expired(certPem: string, t: number): boolean {
  return certificateNotAfter(certPem).getTime() <= t;
}

function expiresWithin(certPem: string, t: number, ms: number): boolean {
  return certificateNotAfter(certPem).getTime() - ms <= t;
}

function servingNeedsRenewal(
  material: TlsMaterial,
  t: number,
  policy: RotationPolicy,
  identity: ServingIdentity,
): boolean {
  if (expiresWithin(material.serving.certPem, t, policy.servingRenewBeforeMs)) return true;
  const serving = new X509Certificate(material.serving.certPem);
  const ca = new X509Certificate(material.ca.certPem);
  if (!serving.checkIssued(ca) || !serving.verify(ca.publicKey)) return true;
  // The configured names changed (new Service name, extra SAN): re-issue.
  for (const name of identity.dnsNames)
    if (!serving.checkHost(name, { wildcards: false })) return true;
  for (const ip of identity.ipAddresses) if (!serving.checkIP(ip)) return true;
  return false;
}
