/**
 * Which fields of an object a cluster's schema does not know, and the object without them.
 * Server-side apply refuses such a field (`field not declared in schema`), where the
 * client-side writes of older tools had the API server drop it; packages written for older
 * clusters carry fields Kubernetes has since removed (`metadata.initializers`, removed in
 * 1.14). The schema is the API server's own OpenAPI v3 document of the object's group/version
 * (openapi-schemas.ts fetches and caches it), reduced here to the little a walk needs.
 *
 * A field is unknown only where the schema says so plainly: the node lists `properties`, the
 * key is not among them, and neither `additionalProperties` nor
 * `x-kubernetes-preserve-unknown-fields` (a CRD without a structural schema, or an open part
 * of one) admits it. A node that lists nothing (RawExtension, JSON, FieldsV1) admits anything.
 */

/** One schema node, with only what decides which keys it admits. */
export interface SchemaNode {
  readonly properties?: ReadonlyMap<string, SchemaRef>;
  /** `true`: any value; a node: the value's schema. */
  readonly additionalProperties?: SchemaRef | true;
  readonly items?: SchemaRef;
  /** x-kubernetes-preserve-unknown-fields: unknown keys are kept. */
  readonly preserveUnknown: boolean;
  /** x-kubernetes-embedded-resource: apiVersion, kind and metadata are implied. */
  readonly embeddedResource: boolean;
  /** Named schemas this one merges in (`$ref`, `allOf`). */
  readonly refs: readonly string[];
}

/** A node, inline or by name in the document's `components.schemas`. */
export type SchemaRef = SchemaNode | string;

/** The named schemas of a group/version, and the name of each kind's schema. */
export interface GroupVersionSchemas {
  readonly schemas: ReadonlyMap<string, SchemaNode>;
  /** Kind → name of its schema (x-kubernetes-group-version-kind of this group/version). */
  readonly kinds: ReadonlyMap<string, string>;
  /** Named schemas merged with what they refer to, as walks need them (filled on use). */
  readonly merged: Map<string, Merged | null>;
}

const REF_PREFIX = '#/components/schemas/';
/** Deeper than any Kubernetes schema nests; a cycle of $refs (JSONSchemaProps) stops here. */
const MAX_DEPTH = 64;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refName(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith(REF_PREFIX)
    ? value.slice(REF_PREFIX.length)
    : undefined;
}

/** One schema of the document reduced to a {@link SchemaNode} (descriptions etc. dropped). */
export function reduceSchema(schema: Json): SchemaNode {
  const refs: string[] = [];
  const own = refName(schema['$ref']);
  if (own !== undefined) refs.push(own);
  const reduceRef = (value: unknown): SchemaRef | undefined => {
    if (!isRecord(value)) return undefined;
    const name = refName(value['$ref']);
    // A bare reference stays a name: shared nodes are reduced once, in the table.
    return name !== undefined && Object.keys(value).length === 1 ? name : reduceSchema(value);
  };
  for (const part of Array.isArray(schema['allOf']) ? schema['allOf'] : []) {
    const node = reduceRef(part);
    if (typeof node === 'string') refs.push(node);
    else if (node) refs.push(...node.refs);
  }
  let properties: Map<string, SchemaRef> | undefined;
  if (isRecord(schema['properties'])) {
    properties = new Map();
    for (const [key, value] of Object.entries(schema['properties'])) {
      properties.set(key, reduceRef(value) ?? OPEN);
    }
  }
  const additional = schema['additionalProperties'];
  const additionalProperties =
    additional === true ? true : isRecord(additional) ? reduceRef(additional) : undefined;
  const items = reduceRef(schema['items']);
  return {
    properties,
    additionalProperties,
    items,
    preserveUnknown: schema['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: schema['x-kubernetes-embedded-resource'] === true,
    refs,
  };
}

/** A node that admits anything. */
const OPEN: SchemaNode = { preserveUnknown: true, embeddedResource: false, refs: [] };

/**
 * The schemas of a group/version's OpenAPI v3 document (`components.schemas`), and which of
 * them is each kind of `group`/`version`.
 */
export function reduceDocument(
  document: unknown,
  group: string,
  version: string,
): GroupVersionSchemas {
  const schemas = new Map<string, SchemaNode>();
  const kinds = new Map<string, string>();
  const components = isRecord(document) ? document['components'] : undefined;
  const named = isRecord(components) ? components['schemas'] : undefined;
  for (const [name, schema] of Object.entries(isRecord(named) ? named : {})) {
    if (!isRecord(schema)) continue;
    schemas.set(name, reduceSchema(schema));
    const claimed = schema['x-kubernetes-group-version-kind'];
    const gvks: unknown[] = Array.isArray(claimed) ? claimed : [];
    for (const gvk of gvks) {
      if (!isRecord(gvk) || gvk['group'] !== group || gvk['version'] !== version) continue;
      const kind = gvk['kind'];
      // DeleteOptions, WatchEvent … list every kind of the group: the first claim wins, and a
      // kind's own schema names only that kind.
      if (typeof kind === 'string' && (gvks.length === 1 || !kinds.has(kind))) {
        kinds.set(kind, name);
      }
    }
  }
  return { schemas, kinds, merged: new Map() };
}

/** A node merged with the named schemas it refers to (properties of all, flags of any). */
export interface Merged {
  readonly properties: Map<string, SchemaRef> | undefined;
  readonly additionalProperties: SchemaRef | true | undefined;
  readonly items: SchemaRef | undefined;
  readonly preserveUnknown: boolean;
  readonly embeddedResource: boolean;
}

/** `ref` merged; undefined when it refers to a schema the document lacks (nothing known). */
function merge(ref: SchemaRef, gv: GroupVersionSchemas): Merged | undefined {
  if (typeof ref !== 'string') return mergeNode(ref, gv.schemas);
  let found = gv.merged.get(ref);
  if (found === undefined) {
    found = mergeNode(ref, gv.schemas) ?? null;
    gv.merged.set(ref, found);
  }
  return found ?? undefined;
}

function mergeNode(ref: SchemaRef, table: ReadonlyMap<string, SchemaNode>): Merged | undefined {
  const seen = new Set<string>();
  const out = {
    properties: undefined as Map<string, SchemaRef> | undefined,
    additionalProperties: undefined as SchemaRef | true | undefined,
    items: undefined as SchemaRef | undefined,
    preserveUnknown: false,
    embeddedResource: false,
  };
  const visit = (r: SchemaRef): boolean => {
    if (typeof r === 'string') {
      if (seen.has(r)) return true;
      seen.add(r);
      const node = table.get(r);
      return node ? visit(node) : false;
    }
    if (r.properties) {
      out.properties ??= new Map();
      for (const [k, v] of r.properties) out.properties.set(k, v);
    }
    if (r.additionalProperties !== undefined) out.additionalProperties = r.additionalProperties;
    if (r.items !== undefined) out.items = r.items;
    out.preserveUnknown ||= r.preserveUnknown;
    out.embeddedResource ||= r.embeddedResource;
    return r.refs.every(visit);
  };
  return visit(ref) ? out : undefined;
}

const EMBEDDED_KEYS = new Set(['apiVersion', 'kind', 'metadata']);

function fieldPath(parent: string, key: string): string {
  return /^[A-Za-z0-9_$-]+$/.test(key)
    ? parent === ''
      ? key
      : `${parent}.${key}`
    : `${parent}[${JSON.stringify(key)}]`;
}

/** `value` without the keys `node` does not know, collecting their paths into `dropped`. */
function prune(
  value: unknown,
  ref: SchemaRef,
  table: GroupVersionSchemas,
  path: string,
  dropped: string[],
  depth: number,
): unknown {
  if (depth > MAX_DEPTH) return value;
  const node = merge(ref, table);
  if (!node) return value;
  if (Array.isArray(value)) {
    const items = node.items;
    if (items === undefined) return value;
    return value.map((item, i) => prune(item, items, table, `${path}[${i}]`, dropped, depth + 1));
  }
  if (!isRecord(value)) return value;
  const { properties, additionalProperties } = node;
  if (properties === undefined && additionalProperties === undefined) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    const known = properties?.get(key);
    const schema = known ?? additionalProperties;
    if (schema === undefined) {
      if (node.preserveUnknown || (node.embeddedResource && EMBEDDED_KEYS.has(key))) {
        out[key] = child;
      } else {
        dropped.push(fieldPath(path, key));
      }
      continue;
    }
    out[key] =
      schema === true
        ? child
        : prune(child, schema, table, fieldPath(path, key), dropped, depth + 1);
  }
  return out;
}

export interface PrunedObject<T> {
  /** The object without the unknown fields (the same object when none was found). */
  readonly object: T;
  /** Their paths, `spec.template.metadata.initializers`, in the object's order. */
  readonly dropped: readonly string[];
}

/**
 * `object` (a `kind` of the group/version `schemas` describe) without the fields the schema
 * does not know; undefined when the document has no schema for the kind.
 */
export function pruneUnknownFields<T extends object>(
  object: T,
  kind: string,
  schemas: GroupVersionSchemas,
): PrunedObject<T> | undefined {
  const root = schemas.kinds.get(kind);
  if (root === undefined) return undefined;
  const dropped: string[] = [];
  const pruned = prune(object, root, schemas, '', dropped, 0) as T;
  return { object: dropped.length === 0 ? object : pruned, dropped };
}
