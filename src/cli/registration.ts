/**
 * Which Planwright installation the cluster calls: the one its mutating webhook registration
 * (`planwright-instances`, one per cluster by name) names — a Service (`planwright init`: the
 * Deployment in its namespace) or a URL (`planwright start --install`: a process on this
 * machine). That installation labels the Instances it admits and is the one that reconciles
 * them; any other stays webhook-only. An installation is its namespace (where its Leases
 * are): whoever registers writes it into the registration's {@link INSTALLATION_ANNOTATION}, so
 * that several `planwright start` processes of one namespace (only one of which the URL can
 * name) count as one installation. A registration without it (written by an older version) is
 * told apart by whom it calls. This file reads the registration and tells whether an
 * installation it names still answers.
 */
import { connect } from 'node:net';
import { ApiError, type KubeClient } from '../kube/index.ts';
import { CliError } from './errors.ts';

export const REGISTRATION_NAME = 'planwright-instances';
/** The Service in front of the webhook server of an in-cluster installation (manifests/deployment). */
export const WEBHOOK_SERVICE = 'planwright-webhook';
/** The namespace of the installation a registration belongs to. */
export const INSTALLATION_ANNOTATION = 'planwright.dev/installation';
const REGISTRATIONS_PATH = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const REGISTRATION_PATH = `${REGISTRATIONS_PATH}/${REGISTRATION_NAME}`;

/** Whom a registration calls. */
export type WebhookTarget =
  | { readonly kind: 'service'; readonly namespace: string; readonly name: string }
  | { readonly kind: 'url'; readonly url: string };

/** What reading the registration found. */
export type Registration =
  | {
      readonly state: 'present';
      readonly target: WebhookTarget;
      /** The installation's namespace, when the registration says. */
      readonly installation: string | undefined;
    }
  | { readonly state: 'absent' }
  | { readonly state: 'forbidden'; readonly message: string };

interface ClientConfig {
  readonly service?: { readonly namespace?: string; readonly name?: string };
  readonly url?: string;
}

interface RegistrationObject {
  metadata?: { annotations?: Record<string, string> };
  webhooks?: Array<{ clientConfig?: ClientConfig }>;
}

/** What a stored registration says. */
function registrationOf(config: RegistrationObject): Registration {
  const clientConfig = config.webhooks?.[0]?.clientConfig ?? {};
  const installation = config.metadata?.annotations?.[INSTALLATION_ANNOTATION] || undefined;
  const target: WebhookTarget = clientConfig.service
    ? {
        kind: 'service',
        namespace: clientConfig.service.namespace ?? '',
        name: clientConfig.service.name ?? '',
      }
    : { kind: 'url', url: clientConfig.url ?? '' };
  return { state: 'present', target, installation };
}

/** Reads the registration (absent, or not ours to read, are answers too). */
export async function readRegistration(
  client: KubeClient,
  signal?: AbortSignal,
  timeoutMs = 5_000,
): Promise<Registration> {
  try {
    const config = await client.request<RegistrationObject>({
      path: REGISTRATION_PATH,
      timeoutMs,
      signal,
    });
    return registrationOf(config);
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return { state: 'absent' };
    if (err instanceof ApiError && err.statusCode === 403) {
      return { state: 'forbidden', message: err.message };
    }
    throw err;
  }
}

/**
 * Follows the registration: lists it (by name) and watches it from there, calling `onChange`
 * with the listed state and with every change, until the watch ends (the server closes it
 * after `timeoutSeconds`, `signal` aborts, or no byte arrived for `inactivityMs`: bookmarks
 * come every minute) or fails (thrown: a 403 when the role lacks list/watch). One LIST and one
 * WATCH per round instead of a read every retry period.
 */
export async function followRegistration(options: {
  readonly client: KubeClient;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly inactivityMs: number;
  readonly onChange: (found: Registration) => void;
}): Promise<void> {
  const { client, signal } = options;
  const fieldSelector = `metadata.name=${REGISTRATION_NAME}`;
  const list = await client.request<{
    metadata?: { resourceVersion?: string };
    items?: RegistrationObject[];
  }>({ path: REGISTRATIONS_PATH, query: { fieldSelector }, timeoutMs: options.timeoutMs, signal });
  const first = list.items?.[0];
  options.onChange(first ? registrationOf(first) : { state: 'absent' });
  await client.watch({
    path: REGISTRATIONS_PATH,
    query: {
      fieldSelector,
      resourceVersion: list.metadata?.resourceVersion ?? '',
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    },
    signal,
    inactivityMs: options.inactivityMs,
    onEvent: (event) => {
      const { type, object } = event as { type?: string; object?: RegistrationObject };
      if (type === 'ADDED' || type === 'MODIFIED') options.onChange(registrationOf(object ?? {}));
      else if (type === 'DELETED') options.onChange({ state: 'absent' });
      else if (type === 'ERROR')
        throw new Error(`watch ${REGISTRATIONS_PATH}: ${JSON.stringify(object)}`);
    },
  });
}

/** `service planwright-system/planwright-webhook` or `https://127.0.0.1:9443/…`. */
export function describeTarget(target: WebhookTarget): string {
  return target.kind === 'service'
    ? `service ${target.namespace}/${target.name}`
    : `${target.url} (a planwright start --install)`;
}

/** This installation: its namespace and whom a registration of it calls. */
export interface Installation {
  readonly namespace: string;
  readonly target: WebhookTarget;
}

/**
 * This installation: in a cluster, behind the planwright-webhook Service of its namespace;
 * else the process at https://127.0.0.1:<port>, once it listens.
 */
export async function thisInstallation(
  namespace: string,
  behindService: boolean,
  port: () => Promise<number>,
): Promise<Installation> {
  if (behindService) {
    return { namespace, target: { kind: 'service', namespace, name: WEBHOOK_SERVICE } };
  }
  const url = `https://127.0.0.1:${await port()}/mutate/instances`;
  return { namespace, target: { kind: 'url', url } };
}

/** Whether a registration found belongs to `installation`. */
export function registeredTo(
  found: Extract<Registration, { state: 'present' }>,
  installation: Installation,
): boolean {
  return found.installation !== undefined
    ? found.installation === installation.namespace
    : sameTarget(found.target, installation.target);
}

/** The other installation a registration names, for a person. */
export function describeRegistration(found: Extract<Registration, { state: 'present' }>): string {
  const calls = describeTarget(found.target);
  return found.installation !== undefined
    ? `the installation of namespace ${found.installation} (it calls ${calls})`
    : calls;
}

/** Whether two targets name the same installation (a URL: same host and port). */
export function sameTarget(a: WebhookTarget, b: WebhookTarget): boolean {
  if (a.kind === 'service' && b.kind === 'service') {
    return a.namespace === b.namespace && a.name === b.name;
  }
  if (a.kind === 'url' && b.kind === 'url') {
    const x = hostPort(a.url);
    const y = hostPort(b.url);
    return x !== undefined && y !== undefined && x.port === y.port && x.loopback === y.loopback;
  }
  return false;
}

function hostPort(url: string): { port: string; loopback: boolean; host: string } | undefined {
  try {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return {
      host,
      port: u.port || '443',
      loopback: host === '127.0.0.1' || host === 'localhost' || host === '::1',
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether the installation `target` names still answers: a Service with a ready endpoint; a
 * loopback URL whose port accepts a connection. A URL elsewhere cannot be checked from here:
 * it counts as answering (the safe side).
 */
export async function targetAnswers(
  client: KubeClient,
  target: WebhookTarget,
  signal?: AbortSignal,
): Promise<boolean> {
  if (target.kind === 'service') {
    const slices = await client.request<{
      items?: Array<{ endpoints?: Array<{ conditions?: { ready?: boolean } }> }>;
    }>({
      path: `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(target.namespace)}/endpointslices`,
      query: { labelSelector: `kubernetes.io/service-name=${target.name}` },
      signal,
    });
    return (slices.items ?? []).some((s) =>
      (s.endpoints ?? []).some((e) => e.conditions?.ready !== false),
    );
  }
  const at = hostPort(target.url);
  if (!at) return false;
  if (!at.loopback) return true;
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host: at.host, port: Number(at.port), timeout: 2_000 });
    const done = (answers: boolean): void => {
      socket.destroy();
      resolve(answers);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/**
 * `--install` replaces the registration: not while it names another installation that still
 * answers (two would reconcile the same Instances; a URL of a process on this machine would
 * also take the webhooks away from an in-cluster installation's users).
 */
export async function refuseAnsweringInstallation(
  client: KubeClient,
  namespace: string,
  signal: AbortSignal,
): Promise<void> {
  const found = await readRegistration(client, signal);
  if (found.state !== 'present') return;
  // Another replica of this installation (same namespace) may register itself instead.
  if (found.installation === namespace) return;
  if (!(await targetAnswers(client, found.target, signal))) return;
  throw new CliError(
    `another Planwright installation runs in this cluster: the webhook registration ${REGISTRATION_NAME} belongs to ${describeRegistration(found)}, which answers. ` +
      '--install would take its webhooks away and two installations would reconcile the same Instances. ' +
      'Stop or uninstall that one first (kubectl delete -k manifests/, or Ctrl-C in its terminal), ' +
      'or run `planwright start` without --install to serve webhooks only.',
  );
}
