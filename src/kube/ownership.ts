/**
 * Field ownership between a manager's Update entry and its Apply entry (server-side apply's
 * managedFields). An object created with a POST carrying `fieldManager=<m>` is owned by
 * `<m>`'s Update entry; a later apply by `<m>` owns what it sets through an Apply entry, and a
 * field only the Update entry owns survives every apply that drops it. Handing the Update
 * entry's fields to the Apply entry (as client-go's csaupgrade does for client-side apply)
 * makes the next apply remove them.
 */

/** A FieldsV1 set: `f:<name>`, `k:<key>`, `v:<value>`, `i:<index>` and `.` (the node itself). */
export interface FieldsV1 {
  [key: string]: FieldsV1;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  apiVersion?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  time?: string;
  [key: string]: unknown;
}

function isEntry(value: unknown): value is ManagedFieldsEntry {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isEmpty(set: FieldsV1): boolean {
  for (const k in set) if (Object.hasOwn(set, k)) return false;
  return true;
}

/**
 * Whether every field `update` owns is owned by `applied` too: a path `applied` holds, or
 * one below a leaf of `applied` (a leaf owns its whole value, e.g. an owner reference by uid).
 * `.` members are left out: they own a map or list item itself, which an apply that keeps
 * any of its members keeps anyway.
 */
export function fieldsCovered(applied: FieldsV1, update: FieldsV1): boolean {
  for (const k in update) {
    if (!Object.hasOwn(update, k) || k === '.') continue;
    const mine = applied[k];
    if (mine === undefined || !Object.hasOwn(applied, k)) return false;
    if (isEmpty(mine)) continue;
    const theirs = update[k] as FieldsV1;
    if (isEmpty(theirs) || !fieldsCovered(mine, theirs)) return false;
  }
  return true;
}

/** The union of two FieldsV1 sets (a new object; the inputs are not changed). */
export function fieldsUnion(a: FieldsV1, b: FieldsV1): FieldsV1 {
  const out: FieldsV1 = Object.create(null) as FieldsV1;
  for (const k in a) if (Object.hasOwn(a, k)) out[k] = a[k] as FieldsV1;
  for (const k in b) {
    if (!Object.hasOwn(b, k)) continue;
    const theirs = b[k] as FieldsV1;
    out[k] = Object.hasOwn(out, k) ? fieldsUnion(out[k] as FieldsV1, theirs) : theirs;
  }
  return out;
}

/** The manager's entry of `operation` for the object itself (not a subresource). */
export function ownEntry(
  obj: { metadata?: { [key: string]: unknown } },
  manager: string,
  operation: 'Apply' | 'Update',
): ManagedFieldsEntry | undefined {
  const entries = obj.metadata?.['managedFields'];
  if (!Array.isArray(entries)) return undefined;
  return entries.find(
    (e): e is ManagedFieldsEntry =>
      isEntry(e) && e.manager === manager && e.operation === operation && !e.subresource,
  );
}

/**
 * The fields an apply of `obj` owns, as FieldsV1, for the kinds a create makes (flat maps):
 * every member of a JSON object by name; an owner reference by its uid; any other list as a
 * leaf (owning its whole value).
 */
export function fieldsOf(obj: unknown): FieldsV1 {
  const out: FieldsV1 = Object.create(null) as FieldsV1;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return out;
  const record = obj as Record<string, unknown>;
  for (const k in record) {
    if (!Object.hasOwn(record, k)) continue;
    const value = record[k];
    if (k === 'ownerReferences' && Array.isArray(value)) {
      const refs: FieldsV1 = Object.create(null) as FieldsV1;
      for (const ref of value) {
        const uid = (ref as { uid?: unknown } | null)?.uid;
        if (typeof uid === 'string') refs[`k:${JSON.stringify({ uid })}`] = {};
      }
      out[`f:${k}`] = refs;
    } else out[`f:${k}`] = Array.isArray(value) ? {} : fieldsOf(value);
  }
  return out;
}

/**
 * The managedFields to write when `manager`'s Update entries (of the object itself, not a
 * subresource) own a field `covering` does not (any field when `covering` is undefined): its
 * Apply entry owning both, the Update entries gone, every other entry as it was. Undefined when
 * nothing needs handing over.
 */
export function ownershipUpgrade(
  managedFields: unknown,
  manager: string,
  covering: FieldsV1 | undefined,
): ManagedFieldsEntry[] | undefined {
  if (!Array.isArray(managedFields)) return undefined;
  const entries = managedFields.filter(isEntry);
  const ours = (e: ManagedFieldsEntry, operation: string): boolean =>
    e.manager === manager && e.operation === operation && !e.subresource;
  const updates = entries.filter((e) => ours(e, 'Update'));
  if (updates.length === 0) return undefined;
  if (covering && updates.every((u) => fieldsCovered(covering, u.fieldsV1 ?? {}))) return undefined;
  const applyEntry = entries.find((e) => ours(e, 'Apply'));
  let fields = applyEntry?.fieldsV1 ?? {};
  for (const u of updates) fields = fieldsUnion(fields, u.fieldsV1 ?? {});
  const first = updates[0] as ManagedFieldsEntry;
  const upgraded: ManagedFieldsEntry = {
    ...(applyEntry ?? {
      manager,
      operation: 'Apply',
      apiVersion: first.apiVersion,
      fieldsType: 'FieldsV1',
      time: first.time,
    }),
    fieldsV1: fields,
  };
  const out: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e === applyEntry) out.push(upgraded);
    else if (!ours(e, 'Update')) out.push(e);
    else if (!applyEntry && e === first) out.push(upgraded);
  }
  return out;
}
