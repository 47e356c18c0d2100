/**
 * The fixed files of charts/planwright (helm-chart.ts writes the templates): Chart.yaml,
 * values.yaml with the defaults manifests/ have, the values' JSON schema (Helm refuses bad
 * values with it before rendering anything) and the helpers the templates include.
 */
import { stringify } from 'yaml';
import type { ApplyObject } from '../kube/index.ts';
import { MAX_SHARDS } from './flag-values.ts';

const GENERATED = 'Generated from manifests/ by src/cli/generate-chart.ts';
/** A 16×16 "P" on a blue square, inline: the chart names no web server. */
const ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHJlY3Qgd2lkdGg9IjE2IiBoZWlnaHQ9IjE2IiByeD0iMyIgZmlsbD0iIzJmNmZiMCIvPjxwYXRoIGQ9Ik00IDEyVjRoNWEyLjUgMi41IDAgMCAxIDAgNUg0IiBmaWxsPSJub25lIiBzdHJva2U9IiNmZmYiIHN0cm9rZS13aWR0aD0iMiIvPjwvc3ZnPg==';

export function chartMetadata(version: string): string {
  return stringify(
    {
      apiVersion: 'v2',
      name: 'planwright',
      description:
        "Planwright: KUDO's API (Operators, OperatorVersions, Instances) served by a declarative operator engine",
      type: 'application',
      version,
      appVersion: version,
      keywords: ['kudo', 'operator', 'planwright'],
      icon: ICON,
    },
    { lineWidth: 0 },
  ).replace(/^/, `# ${GENERATED}.\n`);
}

type Container = { name?: string; image?: string; args?: string[]; resources?: unknown };

/** The `--shards` value of the Deployment's arguments (1, planwright start's default, without). */
function shardsOf(container: Container | undefined): number {
  const args = container?.args ?? [];
  const at = args.indexOf('--shards');
  return at >= 0 ? Number(args[at + 1]) : 1;
}

/** values.yaml: the Deployment's own settings as defaults, everything else off. */
export function chartValues(deployment: ApplyObject, postures: readonly string[]): string {
  const spec = deployment['spec'] as
    { replicas?: number; template?: { spec?: { containers?: Container[] } } } | undefined;
  const container = spec?.template?.spec?.containers?.find((c) => c.name === 'planwright');
  const image = container?.image ?? '';
  const colon = image.lastIndexOf(':');
  const yaml = (value: unknown, indent: string): string =>
    stringify(value, { lineWidth: 0 })
      .trimEnd()
      .split('\n')
      .map((l) => `${indent}${l}`)
      .join('\n');
  return `# Values of the Planwright chart. ${GENERATED}: the defaults install what
# \`planwright init\` installs.

# Replicas of the Deployment: every replica serves the webhooks; the Instances' shards are
# shared out over the live replicas (docs/replicas.md), the one holding the Lease does the
# cluster-wide work.
replicas: ${spec?.replicas ?? 2}

# Shards the Instances are split into (\`planwright start --shards\`): a multiple of the replica
# counts you run keeps their shares even (12: 1, 2, 3, 4 and 6 replicas).
shards: ${shardsOf(container)}

# Planwright's image (npm run image:build; docs/in-cluster.md).
image:
  repository: ${colon > 0 ? image.slice(0, colon) : image}
  tag: ${JSON.stringify(colon > 0 ? image.slice(colon + 1) : 'latest')}

# The container's resources. The memory limit bounds the main process, the admission worker
# and the render workers together: the manager fits its render workers under it.
resources:
${yaml(container?.resources ?? {}, '  ')}

# What an Instance may make Planwright do beyond its namespace (docs/security.md).
tenancy:
  # ${postures.join(' or ')}: \`planwright start --tenancy\`.
  posture: ${postures[0] ?? 'kudo'}
  # FROM=TO: Instances of namespace FROM (* for all) may write into namespace TO.
  allowNamespace: []
  # Namespaces (* for all) whose Instances may apply cluster-scoped objects (multi-tenant).
  allowClusterScoped: []
  # FROM=TO: Instances of FROM may use OperatorVersions of TO (multi-tenant).
  allowOperatorVersion: []
  # Plans write as this ServiceAccount of each Instance's namespace ("": Planwright's own).
  defaultServiceAccount: ""
  # FROM=NAME: Instances of FROM may choose ServiceAccount NAME of their namespace.
  allowServiceAccount: []

# A namespaced installation: Planwright serves these namespaces only and is granted its roles
# there by RoleBindings (docs/namespaced-installation.md). Empty: every namespace.
watchNamespaces: []

# The webhook certificate: false, Planwright issues and rotates it itself (its Secret is owned
# by the webhook Service); true, cert-manager (installed beforehand) issues it.
certManager:
  enabled: false

# The kudo.dev CRDs: installed and upgraded with the release; \`keep\` leaves them (and every
# Instance) in place on \`helm uninstall\`.
crds:
  enabled: true
  keep: true
`;
}

const stringList = { type: 'array', items: { type: 'string', minLength: 1 } };

/** values.schema.json: Helm checks values against it before it renders a template. */
export function chartValuesSchema(postures: readonly string[]): string {
  const schema = {
    $schema: 'https://json-schema.org/draft-07/schema#',
    type: 'object',
    additionalProperties: false,
    properties: {
      replicas: { type: 'integer', minimum: 1 },
      shards: { type: 'integer', minimum: 1, maximum: MAX_SHARDS },
      image: {
        type: 'object',
        additionalProperties: false,
        required: ['repository', 'tag'],
        properties: {
          repository: { type: 'string', minLength: 1 },
          tag: { type: 'string', minLength: 1 },
        },
      },
      resources: { type: 'object' },
      tenancy: {
        type: 'object',
        additionalProperties: false,
        properties: {
          posture: { type: 'string', enum: [...postures] },
          allowNamespace: { ...stringList, items: { type: 'string', pattern: '^[^=]+=[^=]+$' } },
          allowClusterScoped: stringList,
          allowOperatorVersion: {
            ...stringList,
            items: { type: 'string', pattern: '^[^=]+=[^=]+$' },
          },
          defaultServiceAccount: { type: 'string' },
          allowServiceAccount: {
            ...stringList,
            items: { type: 'string', pattern: '^[^=]+=[^=]+$' },
          },
        },
      },
      watchNamespaces: {
        type: 'array',
        items: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
      },
      certManager: {
        type: 'object',
        additionalProperties: false,
        properties: { enabled: { type: 'boolean' } },
      },
      crds: {
        type: 'object',
        additionalProperties: false,
        properties: { enabled: { type: 'boolean' }, keep: { type: 'boolean' } },
      },
    },
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** Flags of `planwright start` with one value per list item of a tenancy value. */
const REPEATED: ReadonlyArray<readonly [value: string, flag: string]> = [
  ['allowNamespace', '--allow-namespace'],
  ['allowClusterScoped', '--allow-cluster-scoped'],
  ['allowOperatorVersion', '--allow-operator-version'],
  ['allowServiceAccount', '--allow-service-account'],
];

/** templates/_helpers.tpl: the arguments and match conditions the values add. */
export function chartHelpers(probeName: string, postures: readonly string[]): string {
  const repeated = REPEATED.map(
    ([value, flag]) =>
      `{{- range .Values.tenancy.${value} }}\n- ${flag}\n- {{ . | quote }}\n{{- end }}`,
  ).join('\n');
  return `{{/* ${GENERATED}. */}}

{{/*
Arguments of planwright start beyond manifests/: a namespaced installation's
--watch-namespaces (as planwright init --watch-namespaces adds it), then the tenancy flags.
*/}}
{{- define "planwright.args" -}}
{{- with .Values.watchNamespaces }}
- --watch-namespaces
- {{ join "," . | quote }}
{{- end }}
{{- if ne .Values.tenancy.posture ${JSON.stringify(postures[0] ?? 'kudo')} }}
- --tenancy
- {{ .Values.tenancy.posture | quote }}
{{- end }}
${repeated}
{{- with .Values.tenancy.defaultServiceAccount }}
- --default-service-account
- {{ . | quote }}
{{- end }}
{{- end }}

{{/*
A namespaced installation's webhooks are called only for its namespaces (and the webhook
probe), as planwright init --watch-namespaces registers them.
*/}}
{{- define "planwright.matchConditions" -}}
{{- with .Values.watchNamespaces }}
matchConditions:
  - name: planwright-watch-namespaces
    expression: {{ printf "request.name == %s || request.namespace in %s" (toJson ${JSON.stringify(probeName)}) (toJson .) | quote }}
{{- end }}
{{- end }}
`;
}
