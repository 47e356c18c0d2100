/**
 * The one Secret all replicas share for self-managed TLS. Writes are optimistic: create
 * fails with "exists" when another replica won, update fails with "conflict" when the
 * Secret moved on; the caller re-reads and uses what is there. Never two CAs.
 *
 * Keys: `ca.crt`, `ca.key`, `tls.crt`, `tls.key`, and during a CA rollover `ca-next.crt`,
 * `ca-next.key`, `ca-previous.crt` (timestamps in annotations).
 */
import * as k8s from '@kubernetes/client-node';
import { TlsError } from '../errors.ts';
import type { TlsMaterial } from './rotation.ts';

const NEXT_STAGED_AT = 'planwright.dev/ca-next-staged-at';
const PREVIOUS_RETIRED_AT = 'planwright.dev/ca-previous-retired-at';

export interface StoredMaterial {
  /** Undefined when the Secret exists but does not hold usable material. */
  readonly material: TlsMaterial | undefined;
  readonly resourceVersion: string;
}

export interface TlsMaterialStore {
  /** Undefined when the Secret does not exist. */
  read(): Promise<StoredMaterial | undefined>;
  create(material: TlsMaterial): Promise<'created' | 'exists'>;
  update(material: TlsMaterial, resourceVersion: string): Promise<'updated' | 'conflict'>;
  /** `namespace/name`, for messages. */
  readonly description: string;
}

export class SecretTlsStore implements TlsMaterialStore {
  readonly description: string;
  private readonly core: k8s.CoreV1Api;

  constructor(
    kubeConfig: k8s.KubeConfig,
    private readonly namespace: string,
    private readonly name: string,
  ) {
    this.core = kubeConfig.makeApiClient(k8s.CoreV1Api);
    this.description = `Secret ${namespace}/${name}`;
  }

  async read(): Promise<StoredMaterial | undefined> {
    let secret: k8s.V1Secret;
    try {
      secret = await this.core.readNamespacedSecret({ name: this.name, namespace: this.namespace });
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw new TlsError(`cannot read: ${messageOf(err)}`, this.description, { cause: err });
    }
    return {
      material: decode(secret),
      resourceVersion: secret.metadata?.resourceVersion ?? '',
    };
  }

  async create(material: TlsMaterial): Promise<'created' | 'exists'> {
    try {
      await this.core.createNamespacedSecret({
        namespace: this.namespace,
        body: this.encode(material),
      });
      return 'created';
    } catch (err) {
      if (statusOf(err) === 409) return 'exists';
      throw new TlsError(`cannot create: ${messageOf(err)}`, this.description, { cause: err });
    }
  }

  async update(material: TlsMaterial, resourceVersion: string): Promise<'updated' | 'conflict'> {
    try {
      await this.core.replaceNamespacedSecret({
        name: this.name,
        namespace: this.namespace,
        body: this.encode(material, resourceVersion),
      });
      return 'updated';
    } catch (err) {
      if (statusOf(err) === 409) return 'conflict';
      throw new TlsError(`cannot update: ${messageOf(err)}`, this.description, { cause: err });
    }
  }

  private encode(material: TlsMaterial, resourceVersion?: string): k8s.V1Secret {
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const data: Record<string, string> = {
      'ca.crt': b64(material.ca.certPem),
      'ca.key': b64(material.ca.keyPem),
      'tls.crt': b64(material.serving.certPem),
      'tls.key': b64(material.serving.keyPem),
    };
    const annotations: Record<string, string> = {};
    if (material.nextCa) {
      data['ca-next.crt'] = b64(material.nextCa.certPem);
      data['ca-next.key'] = b64(material.nextCa.keyPem);
      annotations[NEXT_STAGED_AT] = material.nextCa.stagedAt.toISOString();
    }
    if (material.previousCa) {
      data['ca-previous.crt'] = b64(material.previousCa.certPem);
      annotations[PREVIOUS_RETIRED_AT] = material.previousCa.retiredAt.toISOString();
    }
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { 'app.kubernetes.io/managed-by': 'planwright' },
        annotations,
        ...(resourceVersion ? { resourceVersion } : {}),
      },
      data,
    };
  }
}

function decode(secret: k8s.V1Secret): TlsMaterial | undefined {
  const data = secret.data ?? {};
  const get = (key: string): string | undefined => {
    const value = data[key];
    return value ? Buffer.from(value, 'base64').toString('utf8') : undefined;
  };
  const caCert = get('ca.crt');
  const caKey = get('ca.key');
  const tlsCert = get('tls.crt');
  const tlsKey = get('tls.key');
  if (!caCert || !caKey || !tlsCert || !tlsKey) return undefined;
  const annotations = secret.metadata?.annotations ?? {};
  const nextCert = get('ca-next.crt');
  const nextKey = get('ca-next.key');
  const stagedAt = parseDate(annotations[NEXT_STAGED_AT]);
  const previousCert = get('ca-previous.crt');
  const retiredAt = parseDate(annotations[PREVIOUS_RETIRED_AT]);
  return {
    ca: { certPem: caCert, keyPem: caKey },
    serving: { certPem: tlsCert, keyPem: tlsKey },
    ...(nextCert && nextKey && stagedAt
      ? { nextCa: { certPem: nextCert, keyPem: nextKey, stagedAt } }
      : {}),
    ...(previousCert && retiredAt ? { previousCa: { certPem: previousCert, retiredAt } } : {}),
  };
}

function parseDate(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** HTTP status of a client-node error, if it has one. */
export function statusOf(err: unknown): number | undefined {
  if (err instanceof k8s.ApiException) return err.code;
  return undefined;
}

export function messageOf(err: unknown): string {
  if (err instanceof k8s.ApiException) {
    const body: unknown = err.body;
    if (typeof body === 'string') {
      try {
        const parsed = JSON.parse(body) as { message?: string };
        if (parsed.message) return `${err.code}: ${parsed.message}`;
      } catch {
        // Not a Status; fall through.
      }
    }
    return `HTTP ${err.code}`;
  }
  return err instanceof Error ? err.message : String(err);
}
