// Requests per user, from the kube-apiserver's audit log: the apiserver's own metrics do not
// say who asked, and a bench compares one manager's requests with another's while its own
// client creates and watches on the same apiserver.
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** kube-apiserver flags for a Metadata-level audit log of `users` only, written into `dir`. */
export async function auditLogArgs(
  dir: string,
  users: readonly string[],
): Promise<{ args: string[]; logPath: string }> {
  const policyPath = join(dir, 'audit-policy.yaml');
  const logPath = join(dir, 'audit.log');
  const policy = {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    // One event per request (ResponseComplete; a watch also has ResponseStarted): counted once
    // by audit ID.
    omitStages: ['RequestReceived'],
    rules: [{ level: 'Metadata', users: [...users] }, { level: 'None' }],
  };
  await writeFile(policyPath, stringify(policy));
  return {
    args: [
      `--audit-policy-file=${policyPath}`,
      `--audit-log-path=${logPath}`,
      '--audit-log-format=json',
      '--audit-log-maxsize=0',
    ],
    logPath,
  };
}

export const WRITE_VERBS: ReadonlySet<string> = new Set([
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
]);

/** Requests of one user: `verb resource[/subresource]` → count. */
export type RequestCounts = Map<string, number>;

interface AuditEvent {
  auditID?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string };
  requestURI?: string;
}

/**
 * Counts requests per user from an audit log as it grows: each `refresh()` reads what was
 * appended since the last one. `snapshot()` copies the counts, `since()` subtracts one.
 */
export class AuditTally {
  private offset = 0;
  private rest = '';
  private readonly seen = new Set<string>();
  private readonly counts = new Map<string, RequestCounts>();

  constructor(readonly logPath: string) {}

  async refresh(): Promise<void> {
    let file;
    try {
      file = await open(this.logPath, 'r');
    } catch {
      return; // nothing logged yet
    }
    try {
      const chunk = Buffer.alloc(1 << 20);
      for (;;) {
        const { bytesRead } = await file.read(chunk, 0, chunk.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        const lines = (this.rest + chunk.subarray(0, bytesRead).toString('utf8')).split('\n');
        this.rest = lines.pop() ?? '';
        for (const line of lines) if (line) this.add(JSON.parse(line) as AuditEvent);
      }
    } finally {
      await file.close();
    }
  }

  private add(event: AuditEvent): void {
    const id = event.auditID ?? '';
    if (this.seen.has(id)) return;
    this.seen.add(id);
    const user = event.user?.username ?? '?';
    const ref = event.objectRef;
    const path = (event.requestURI ?? '?').split('?')[0] ?? '?';
    // Discovery (/api, /apis/<group>/<version>) is one line, not one per group.
    const what = ref?.resource
      ? `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}`
      : /^\/apis?(\/|$)/.test(path)
        ? '(discovery)'
        : path;
    const key = `${event.verb ?? '?'} ${what}`;
    let perUser = this.counts.get(user);
    if (!perUser) this.counts.set(user, (perUser = new Map<string, number>()));
    perUser.set(key, (perUser.get(key) ?? 0) + 1);
  }

  /** A copy of the counts so far for `user`. */
  snapshot(user: string): RequestCounts {
    return new Map(this.counts.get(user) ?? []);
  }
}

/** `after - before`, keys with no change left out, largest first. */
export function countsSince(after: RequestCounts, before: RequestCounts): Array<[string, number]> {
  return [...after]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as [string, number])
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export function total(counts: Iterable<[string, number]>, onlyWrites = false): number {
  let n = 0;
  for (const [key, v] of counts)
    if (!onlyWrites || WRITE_VERBS.has(key.split(' ')[0] ?? '')) n += v;
  return n;
}
