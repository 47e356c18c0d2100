/**
 * charts/planwright, generated from manifests/: the same objects `planwright init` applies
 * (installationObjects, both variants), with Helm expressions only where a value chooses —
 * release namespace, replicas, shards, image, resources, extra arguments (tenancy posture, watched
 * namespaces), the cert-manager variant, CRDs kept on uninstall. manifests/ stays the one
 * source: src/cli/generate-chart.ts writes the chart; test/unit/charts/chart-files.test.ts fails
 * when the chart in the repository is not what this writes (and, with Helm itself, when what
 * Helm renders differs from what init installs).
 *
 * Two differences from init, both Helm's way: the Namespace is the release's (created with
 * `helm install --create-namespace`, so it lacks init's `planwright.dev/instance-admission:
 * disabled` opt-out label), and the CRDs are templates (installed and upgraded with the
 * release; kept on uninstall unless `crds.keep=false`).
 */
import { stringify } from 'yaml';
import type { ApplyObject } from '../kube/index.ts';
import { TENANCY_POSTURES } from '../kudo/tasks/index.ts';
import {
  MANIFEST_NAMESPACE,
  NAMESPACED_ROLES,
  installationObjects,
  renameNamespace,
} from './manifests.ts';
import { WEBHOOK_PROBE_NAME } from './watch-namespaces.ts';
import { chartHelpers, chartMetadata, chartValues, chartValuesSchema } from './helm-chart-files.ts';

export interface ChartFile {
  /** Relative to charts/planwright. */
  readonly path: string;
  readonly text: string;
}

/** Stands for the release namespace until the text is written (a DNS label, as renamed). */
const NS = 'helm-release-namespace';
const TOKEN = {
  replicas: '__PLANWRIGHT_REPLICAS__',
  shards: '__PLANWRIGHT_SHARDS__',
  image: '__PLANWRIGHT_IMAGE__',
  resources: '__PLANWRIGHT_RESOURCES__',
  args: '__PLANWRIGHT_ARGS__',
  matchConditions: '__PLANWRIGHT_MATCH_CONDITIONS__',
  keep: '__PLANWRIGHT_CRD_KEEP__',
  watched: '__PLANWRIGHT_WATCHED_NAMESPACE__',
} as const;

const HEADER =
  '# Generated from manifests/ by src/cli/generate-chart.ts: edit manifests/, then run it.\n';

function key(o: ApplyObject): string {
  return `${o.kind ?? ''}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

type Container = { name?: string; image?: string; args?: unknown[]; resources?: unknown };

/** The Deployment with tokens where the values go. */
function deployment(o: ApplyObject): ApplyObject {
  const copy = structuredClone(o);
  const spec = copy['spec'] as
    { replicas?: unknown; template?: { spec?: { containers?: Container[] } } } | undefined;
  if (spec) spec.replicas = TOKEN.replicas;
  for (const c of spec?.template?.spec?.containers ?? []) {
    if (c.name !== 'planwright') continue;
    c.image = TOKEN.image;
    const args = [...(c.args ?? [])];
    const shards = args.indexOf('--shards');
    if (shards >= 0) args[shards + 1] = TOKEN.shards;
    c.args = [...args, TOKEN.args];
    c.resources = TOKEN.resources;
  }
  return copy;
}

function webhookConfiguration(o: ApplyObject): ApplyObject {
  const copy = structuredClone(o);
  for (const webhook of (copy['webhooks'] ?? []) as Array<Record<string, unknown>>) {
    webhook['matchConditions'] = TOKEN.matchConditions;
  }
  return copy;
}

function crd(o: ApplyObject): ApplyObject {
  const copy = structuredClone(o);
  copy.metadata = {
    ...copy.metadata,
    annotations: { ...copy.metadata?.annotations, [TOKEN.keep]: 'keep' },
  };
  return copy;
}

/** YAML of one object, tokens replaced by Helm expressions. */
function yamlOf(o: ApplyObject): string {
  // Text of manifests/ that looks like a template action (a CRD's `{{ .Params.<name> }}`)
  // is printed by Helm as it is.
  const text = stringify(o, { lineWidth: 0 }).replaceAll('{{', '{{ "{{" }}');
  return text
    .replace(/^( *)replicas: __PLANWRIGHT_REPLICAS__$/m, '$1replicas: {{ $.Values.replicas }}')
    .replace(/^( *)- __PLANWRIGHT_SHARDS__$/m, '$1- {{ $.Values.shards | quote }}')
    .replace(
      /^( *)image: __PLANWRIGHT_IMAGE__$/m,
      '$1image: {{ printf "%s:%s" $.Values.image.repository $.Values.image.tag | quote }}',
    )
    .replace(
      /^( *)resources: __PLANWRIGHT_RESOURCES__$/m,
      (_, indent: string) =>
        `${indent}resources: {{- toYaml $.Values.resources | nindent ${indent.length + 2} }}`,
    )
    .replace(
      /^( *)- __PLANWRIGHT_ARGS__$/m,
      (_, indent: string) =>
        `${indent}{{- include "planwright.args" $ | nindent ${indent.length} }}`,
    )
    .replace(
      /^( *)matchConditions: __PLANWRIGHT_MATCH_CONDITIONS__$/gm,
      (_, indent: string) =>
        `${indent}{{- include "planwright.matchConditions" $ | nindent ${indent.length} }}`,
    )
    .replace(
      /^( *)__PLANWRIGHT_CRD_KEEP__: keep$/m,
      (_, indent: string) =>
        `{{- if $.Values.crds.keep }}\n${indent}helm.sh/resource-policy: keep\n{{- end }}`,
    )
    .replace(/^( *)namespace: __PLANWRIGHT_WATCHED_NAMESPACE__$/m, '$1namespace: {{ . }}')
    .replaceAll(NS, '{{ $.Release.Namespace }}');
}

/** A binding init makes per watched namespace in a namespaced installation. */
function roleBinding(o: ApplyObject): string {
  const perNamespace: ApplyObject = {
    ...structuredClone(o),
    kind: 'RoleBinding',
    metadata: { ...structuredClone(o.metadata), namespace: TOKEN.watched },
  };
  return [
    '{{- if not $.Values.watchNamespaces }}',
    yamlOf(o).trimEnd(),
    '{{- else }}',
    '{{- range $.Values.watchNamespaces }}',
    '---',
    yamlOf(perNamespace).trimEnd(),
    '{{- end }}',
    '{{- end }}',
  ].join('\n');
}

function textOf(o: ApplyObject): string {
  const roleRef = o['roleRef'] as { name?: string } | undefined;
  if (o.kind === 'ClusterRoleBinding' && NAMESPACED_ROLES.includes(roleRef?.name ?? '')) {
    return roleBinding(o);
  }
  if (o.kind === 'Deployment') return yamlOf(deployment(o)).trimEnd();
  if (o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration') {
    return yamlOf(webhookConfiguration(o)).trimEnd();
  }
  if (o.kind === 'CustomResourceDefinition') return yamlOf(crd(o)).trimEnd();
  return yamlOf(o).trimEnd();
}

function guarded(condition: string, body: string): string {
  return `{{- if ${condition} }}\n${body}\n{{- end }}`;
}

/** The template of one object of either variant (or both), under the condition it needs. */
function template(self: ApplyObject | undefined, certManager: ApplyObject | undefined): string {
  if (self && certManager) {
    const a = textOf(self);
    const b = textOf(certManager);
    if (a === b) return a;
    return `{{- if $.Values.certManager.enabled }}\n${b}\n{{- else }}\n${a}\n{{- end }}`;
  }
  if (self) return guarded('not $.Values.certManager.enabled', textOf(self));
  return guarded('$.Values.certManager.enabled', textOf(certManager as ApplyObject));
}

function fileName(o: ApplyObject): string {
  return `templates/${(o.kind ?? '').toLowerCase()}-${o.metadata?.name ?? ''}.yaml`;
}

/** Both variants of the installation, the Namespace left to Helm, in init's order. */
async function variants(dir: string | undefined): Promise<[ApplyObject[], ApplyObject[]]> {
  const load = async (certManager: boolean): Promise<ApplyObject[]> =>
    renameNamespace(
      (await installationObjects({ certManager, ...(dir ? { dir } : {}) })).filter(
        (o) => o.kind !== 'Namespace',
      ),
      MANIFEST_NAMESPACE,
      NS,
    );
  return [await load(false), await load(true)];
}

/** Every generated file of the chart (the chart's README is written by hand). */
export async function helmChartFiles(options: {
  readonly manifestsDir?: string;
  readonly version: string;
}): Promise<ChartFile[]> {
  const [self, certManager] = await variants(options.manifestsDir);
  const byKey = new Map<string, [ApplyObject | undefined, ApplyObject | undefined]>();
  for (const o of self) byKey.set(key(o), [o, undefined]);
  for (const o of certManager) byKey.set(key(o), [byKey.get(key(o))?.[0], o]);
  const files: ChartFile[] = [];
  for (const [a, b] of byKey.values()) {
    const o = (a ?? b) as ApplyObject;
    let body = template(a, b);
    if (o.kind === 'CustomResourceDefinition') body = guarded('$.Values.crds.enabled', body);
    files.push({ path: fileName(o), text: `${HEADER}${body}\n` });
  }
  const defaults = self.find((o) => o.kind === 'Deployment');
  if (!defaults) throw new Error('manifests/ render no Deployment');
  return [
    { path: 'Chart.yaml', text: chartMetadata(options.version) },
    { path: 'values.yaml', text: chartValues(defaults, TENANCY_POSTURES) },
    { path: 'values.schema.json', text: chartValuesSchema(TENANCY_POSTURES) },
    { path: 'templates/_helpers.tpl', text: chartHelpers(WEBHOOK_PROBE_NAME, TENANCY_POSTURES) },
    ...files.sort((x, y) => (x.path < y.path ? -1 : 1)),
  ];
}
