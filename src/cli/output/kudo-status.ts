/**
 * `plan status -o yaml|json` as KUDO's CLI printed it: the Instance's status decoded into
 * KUDO's Go types (so only KUDO's fields, in the Go structs' field order, empty strings
 * omitted, times in whole seconds) and written by encoding/json (two-space indent, HTML
 * characters escaped) or sigs.k8s.io/yaml (go-yaml v2 of the JSON), each followed by an empty
 * line as Go's Fprintln of the text left it. Planwright's own status fields (inventory,
 * planExecution, step start times) are read with `kubectl get instance -o yaml`.
 */
import type { Condition, InstanceStatus, PlanStatus } from '../../kudo/api/index.ts';
import { goYamlMarshal, type GoYamlValue } from '../../kudo/tasks/index.ts';
import type { OutputFormat } from './objects.ts';

/** A JSON value whose object keys keep the order they were inserted in. */
type Json = GoYamlValue;

/** metav1.Time: RFC 3339 in UTC, whole seconds; a value Go could not parse is kept. */
function goTime(value: string | null | undefined): string | null {
  if (!value) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** Adds the fields whose value is not Go's empty value (`omitempty`). */
function omitEmpty(fields: ReadonlyArray<readonly [string, Json | undefined]>): {
  [key: string]: Json;
} {
  const out: { [key: string]: Json } = {};
  for (const [key, value] of fields) {
    if (value === undefined || value === null || value === '' || value === 0) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  return out;
}

function plan(p: PlanStatus): Json {
  return omitEmpty([
    ['name', p.name],
    ['status', p.status],
    ['message', p.message],
    ['lastUpdatedTimestamp', goTime(p.lastUpdatedTimestamp) ?? undefined],
    [
      'phases',
      (p.phases ?? []).map((phase) =>
        omitEmpty([
          ['name', phase.name],
          ['status', phase.status],
          ['message', phase.message],
          [
            'steps',
            (phase.steps ?? []).map((step) =>
              omitEmpty([
                ['name', step.name],
                ['message', step.message],
                ['status', step.status],
              ]),
            ),
          ],
        ]),
      ),
    ],
    ['uid', p.uid],
  ]);
}

function condition(c: Condition): Json {
  return {
    type: c.type,
    status: c.status,
    ...(c.observedGeneration ? { observedGeneration: c.observedGeneration } : {}),
    lastTransitionTime: goTime(c.lastTransitionTime),
    reason: c.reason ?? '',
    message: c.message ?? '',
  };
}

/** The status as KUDO's `InstanceStatus` holds it (Go maps: keys sorted). */
export function kudoInstanceStatus(status: InstanceStatus | undefined): Json {
  const plans = status?.planStatus ?? {};
  const keys = Object.keys(plans).sort();
  return omitEmpty([
    [
      'planStatus',
      keys.length
        ? Object.fromEntries(keys.map((k) => [k, plan(plans[k] as PlanStatus)]))
        : undefined,
    ],
    ['conditions', (status?.conditions ?? []).map(condition)],
  ]);
}

/** encoding/json's string: `<`, `>`, `&`, U+2028/9 and control characters as \u escapes. */
function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]|\\[bf]/g, (c) =>
    c === '\\b'
      ? '\\u0008'
      : c === '\\f'
        ? '\\u000c'
        : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** json.MarshalIndent(value, "", "  "). */
export function goJson(value: Json, indent = ''): string {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' ? goJsonString(value) : JSON.stringify(value);
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = value as readonly Json[];
    if (items.length === 0) return '[]';
    return `[\n${items.map((v) => inner + goJson(v, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as { [key: string]: Json });
  if (entries.length === 0) return '{}';
  return `{\n${entries
    .map(([k, v]) => `${inner}${goJsonString(k)}: ${goJson(v, inner)}`)
    .join(',\n')}\n${indent}}`;
}

/** The text `plan status -o <format>` prints. */
export function formatKudoStatus(status: InstanceStatus | undefined, format: OutputFormat): string {
  const value = kudoInstanceStatus(status);
  return format === 'json' ? `${goJson(value)}\n` : `${goYamlMarshal(value)}\n`;
}
