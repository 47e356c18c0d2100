/**
 * apiextensions.k8s.io/v1beta1 CustomResourceDefinition → v1, in two steps:
 *
 * 1. {@link convertCrdLikeTheApiServer}: what the API server returned for a stored v1beta1 CRD
 *    read as v1 (apiextensions-apiserver pkg/apis/apiextensions/v1beta1 defaults and
 *    conversion to the internal version, pkg/apis/apiextensions/v1/conversion.go on to v1):
 *    `version` becomes `versions`, the top-level `validation`, `subresources`,
 *    `additionalPrinterColumns` (`JSONPath` → `jsonPath`) and `selectableFields` move into
 *    every version, `webhookClientConfig`/`conversionReviewVersions` move under
 *    `conversion.webhook`, and v1beta1's defaults (`scope: Namespaced`,
 *    `preserveUnknownFields: true`) are written out.
 * 2. {@link makeCrdCreatable}: a v1 *create* demands more than a stored v1beta1 CRD had: no
 *    `preserveUnknownFields: true` (the same "keep unknown fields" is
 *    `x-kubernetes-preserve-unknown-fields` on every object of the schema), a schema for each
 *    version, a structural schema (see structural.ts), and in a protected group (`*.k8s.io`,
 *    `*.kubernetes.io`) the `api-approved.kubernetes.io` annotation.
 */
import { get, isObject, type Json } from './json.ts';
import { structuralSchema, preservingSchema } from './structural.ts';

/** `{JSONPath}` → `{jsonPath}`: the only field of a printer column v1 renamed. */
function printerColumns(columns: unknown): unknown {
  if (!Array.isArray(columns)) return columns;
  return columns.map((c: unknown) => {
    if (!isObject(c)) return c;
    const { JSONPath, ...rest } = c;
    return JSONPath === undefined ? rest : { ...rest, jsonPath: JSONPath };
  });
}

/** `default: null` / `example: null` decode to "no default" (Go's JSON conversion). */
function dropNullDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNullDefaults);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if ((k === 'default' || k === 'example') && v === null) continue;
    // Values of `default`, `example` and `enum` are data, not schemas.
    out[k] = k === 'default' || k === 'example' || k === 'enum' ? v : dropNullDefaults(v);
  }
  return out;
}

function convertVersion(version: Json): Json {
  const out: Json = { ...version };
  if (out['additionalPrinterColumns'] !== undefined) {
    out['additionalPrinterColumns'] = printerColumns(out['additionalPrinterColumns']);
  }
  if (isObject(out['schema'])) out['schema'] = dropNullDefaults(out['schema']);
  return out;
}

function convertConversion(conversion: Json): Json {
  const { webhookClientConfig, conversionReviewVersions, ...rest } = conversion;
  const out: Json = { ...rest, strategy: rest['strategy'] || 'None' };
  const reviews =
    conversionReviewVersions ?? (rest['strategy'] === 'Webhook' ? ['v1beta1'] : undefined);
  if (webhookClientConfig !== undefined || reviews !== undefined) {
    out['webhook'] = {
      ...(reviews !== undefined ? { conversionReviewVersions: reviews } : {}),
      ...(webhookClientConfig !== undefined && webhookClientConfig !== null
        ? { clientConfig: webhookClientConfig }
        : {}),
    };
  }
  return out;
}

/** Step 1 (in place): the apiserver's own v1beta1 → v1 conversion, with v1beta1's defaults. */
export function convertCrdLikeTheApiServer(obj: Json): void {
  obj['apiVersion'] = 'apiextensions.k8s.io/v1';
  const spec = get(obj, 'spec');
  if (!spec) return;
  if (!spec['scope']) spec['scope'] = 'Namespaced';
  const version = spec['version'];
  delete spec['version'];
  let versions = Array.isArray(spec['versions'])
    ? spec['versions'].filter(isObject).map(convertVersion)
    : [];
  if (versions.length === 0 && typeof version === 'string' && version !== '') {
    versions = [{ name: version, served: true, storage: true }];
  }
  const moved: Array<[string, string, (v: unknown) => unknown]> = [
    ['subresources', 'subresources', (v) => v],
    ['validation', 'schema', dropNullDefaults],
    ['additionalPrinterColumns', 'additionalPrinterColumns', printerColumns],
    ['selectableFields', 'selectableFields', (v) => v],
  ];
  for (const [from, to, convert] of moved) {
    const value = spec[from];
    delete spec[from];
    if (value === undefined || value === null) continue;
    const converted = convert(value);
    versions = versions.map((v) => ({ ...v, [to]: structuredClone(converted) }));
  }
  spec['versions'] = versions;
  spec['conversion'] = convertConversion(isObject(spec['conversion']) ? spec['conversion'] : {});
  if (spec['preserveUnknownFields'] === undefined || spec['preserveUnknownFields'] === null) {
    spec['preserveUnknownFields'] = true;
  }
}

/** The annotation a v1 CRD in a protected group must carry (KEP 1111). */
export const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

/**
 * Set where the package had none. The API server lets a value starting with "unapproved" pass
 * (apiextensions-apiserver GetAPIApprovalState): this one also says where it came from.
 */
export const CONVERTED_APPROVAL =
  'unapproved, converted by Planwright from an apiextensions.k8s.io/v1beta1 package (the v1beta1 API did not require approval)';

/**
 * `k8s.io`, `kubernetes.io` and their subdomains (apiextensions-apiserver
 * IsProtectedCommunityGroup): a v1 create there needs the approval annotation.
 */
export function isProtectedGroup(group: string): boolean {
  return (
    group === 'k8s.io' ||
    group.endsWith('.k8s.io') ||
    group === 'kubernetes.io' ||
    group.endsWith('.kubernetes.io')
  );
}

/** A v1beta1 CRD in a protected group never needed approval: the converted one says it has none. */
function markUnapproved(obj: Json, spec: Json): void {
  const group = spec['group'];
  if (typeof group !== 'string' || !isProtectedGroup(group)) return;
  const metadata = isObject(obj['metadata']) ? obj['metadata'] : (obj['metadata'] = {});
  const annotations = isObject(metadata['annotations'])
    ? metadata['annotations']
    : (metadata['annotations'] = {});
  const current = annotations[API_APPROVAL_ANNOTATION];
  // An empty value is "missing" to the API server, as is none.
  if (typeof current === 'string' && current !== '') return;
  annotations[API_APPROVAL_ANNOTATION] = CONVERTED_APPROVAL;
}

/** Step 2 (in place): what a v1 create requires beyond step 1. */
export function makeCrdCreatable(obj: Json): void {
  const spec = get(obj, 'spec');
  if (!spec) return;
  markUnapproved(obj, spec);
  const preserveAll = spec['preserveUnknownFields'] === true;
  delete spec['preserveUnknownFields'];
  const versions = Array.isArray(spec['versions']) ? spec['versions'] : [];
  for (const version of versions) {
    if (!isObject(version)) continue;
    const schema = get(get(version, 'schema'), 'openAPIV3Schema');
    version['schema'] = {
      openAPIV3Schema: schema ? structuralSchema(schema, preserveAll) : preservingSchema(),
    };
  }
}

export function convertCustomResourceDefinition(obj: Json): void {
  convertCrdLikeTheApiServer(obj);
  makeCrdCreatable(obj);
}
