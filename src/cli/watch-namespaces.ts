/**
 * `planwright start --watch-namespaces a,b,kuttl-test-*`: the namespaces one Planwright serves.
 * An entry ending in `*` is a name prefix (tools such as kuttl make namespaces with random
 * suffixes). The Instance controller reconciles only these namespaces, and with `--install`
 * the webhook registrations gain a match condition for them — the rules, selectors, failure
 * policy and timeouts stay those of manifests/webhook/.
 */
import { CliError } from './errors.ts';

/** The name of every object the webhook probe sends (it is never stored). */
export const WEBHOOK_PROBE_NAME = 'planwright-webhook-probe';

export interface WatchNamespaces {
  readonly names: readonly string[];
  readonly prefixes: readonly string[];
}

/** A DNS-1123 label, or its start followed by `*`. */
const ENTRY = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PREFIX = /^[a-z0-9][-a-z0-9]{0,62}\*$/;

export function parseWatchNamespaces(value: string): WatchNamespaces {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) {
    throw new CliError(
      '--watch-namespaces needs namespace names, e.g. --watch-namespaces team-a,team-b or kuttl-test-*',
    );
  }
  const names: string[] = [];
  const prefixes: string[] = [];
  for (const entry of entries) {
    if (PREFIX.test(entry)) prefixes.push(entry.slice(0, -1));
    else if (ENTRY.test(entry)) names.push(entry);
    else {
      throw new CliError(
        `--watch-namespaces: ${JSON.stringify(entry)} is not a namespace name (lower-case letters, digits and '-') or a prefix ending in '*'`,
      );
    }
  }
  return { names, prefixes };
}

export function watchesNamespace(watch: WatchNamespaces, namespace: string): boolean {
  return watch.names.includes(namespace) || watch.prefixes.some((p) => namespace.startsWith(p));
}

/**
 * The CEL match condition a webhook registration gets for these namespaces. The webhook
 * probe (src/cli/webhook-probe.ts, objects named {@link WEBHOOK_PROBE_NAME} in the Lease's
 * namespace) is matched too: `start --install` proves the API server calls these webhooks
 * before it says it runs, whatever namespaces it serves.
 */
export function watchCondition(watch: WatchNamespaces): { name: string; expression: string } {
  const terms = [
    `request.name == ${JSON.stringify(WEBHOOK_PROBE_NAME)}`,
    ...(watch.names.length > 0 ? [`request.namespace in ${JSON.stringify(watch.names)}`] : []),
    ...watch.prefixes.map((p) => `request.namespace.startsWith(${JSON.stringify(p)})`),
  ];
  return { name: 'planwright-watch-namespaces', expression: terms.join(' || ') };
}
