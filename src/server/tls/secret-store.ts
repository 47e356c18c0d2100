/**
 * The one Secret all replicas share for self-managed TLS. Writes are optimistic: create
 * fails with "exists" when another replica won, update fails with "conflict" when the
 * Secret moved on; the caller re-reads and uses what is there. Never two CAs.
 *
 * Keys: `ca.crt`, `ca.key`, `tls.crt`, `tls.key`, and during a CA rollover `ca-next.crt`,
 * `ca-next.key`, `ca-previous.crt` (timestamps in annotations).
 */
import { ApiError, type KubeClient } from '../../kube/index.ts';
import { TlsError } from '../errors.ts';
import type { TlsMaterial } from './rotation.ts';
import { namespacedName } from '../../kube/index.ts';

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

interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

/** The fields of a Secret this store reads and writes. */
interface Secret {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly type?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly OwnerReference[];
  };
  readonly data?: Readonly<Record<string, string>>;
}

/** Timeout of one request; the caller's loop retries with backoff. */
const REQUEST_TIMEOUT_MS = 10_000;

export class SecretTlsStore implements TlsMaterialStore {
  readonly description: string;
  private readonly collection: string;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly name: string,
    /**
     * The Service the certificate is for: when it exists, the Secret names it as its owner, so
     * removing the installation (`helm uninstall`, `kubectl delete -k`) removes the Secret too
     * — the garbage collector deletes it with the Service. Without the Service (a local run
     * that registers URLs), the Secret has no owner.
     */
    private readonly serviceName?: string,
  ) {
    this.collection = `/api/v1/namespaces/${namespace}/secrets`;
    this.description = `Secret ${namespacedName({ namespace, name })}`;
  }

  /** The owner reference to the Service, when it exists and may be read; else none. */
  private async ownerReferences(): Promise<OwnerReference[]> {
    if (!this.serviceName) return [];
    try {
      const service = await this.client.request<{ metadata?: { uid?: string } }>({
        path: `/api/v1/namespaces/${this.namespace}/services/${this.serviceName}`,
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      const uid = service.metadata?.uid;
      return uid ? [{ apiVersion: 'v1', kind: 'Service', name: this.serviceName, uid }] : [];
    } catch (err) {
      // No Service, or no right to read it: a Secret without an owner, as before.
      if (err instanceof ApiError && (err.statusCode === 404 || err.statusCode === 403)) return [];
      throw new TlsError(`cannot read its Service: ${messageOf(err)}`, this.description, {
        cause: err,
      });
    }
  }

  async read(): Promise<StoredMaterial | undefined> {
    let secret: Secret;
    try {
      secret = await this.client.request<Secret>({
        path: `${this.collection}/${this.name}`,
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return undefined;
      throw new TlsError(`cannot read: ${messageOf(err)}`, this.description, { cause: err });
    }
    return {
      material: decode(secret),
      resourceVersion: secret.metadata?.resourceVersion ?? '',
    };
  }

  async create(material: TlsMaterial): Promise<'created' | 'exists'> {
    try {
      await this.client.request({
        method: 'POST',
        path: this.collection,
        body: this.encode(material, await this.ownerReferences()),
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      return 'created';
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 409) return 'exists';
      throw new TlsError(`cannot create: ${messageOf(err)}`, this.description, { cause: err });
    }
  }

  async update(material: TlsMaterial, resourceVersion: string): Promise<'updated' | 'conflict'> {
    try {
      await this.client.request({
        method: 'PUT',
        path: `${this.collection}/${this.name}`,
        body: this.encode(material, await this.ownerReferences(), resourceVersion),
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      return 'updated';
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 409) return 'conflict';
      throw new TlsError(`cannot update: ${messageOf(err)}`, this.description, { cause: err });
    }
  }

  private encode(
    material: TlsMaterial,
    owners: readonly OwnerReference[],
    resourceVersion?: string,
  ): Secret {
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
        ownerReferences: owners,
        resourceVersion: resourceVersion || undefined,
      },
      data,
    };
  }
}

function decode(secret: Secret): TlsMaterial | undefined {
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
    nextCa:
      nextCert && nextKey && stagedAt
        ? { certPem: nextCert, keyPem: nextKey, stagedAt }
        : undefined,
    previousCa: previousCert && retiredAt ? { certPem: previousCert, retiredAt } : undefined,
  };
}

function parseDate(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The API's own message (ApiError carries verb, path, status and the Status message). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
