/**
 * apiVersion strings (`apps/v1`, `v1`) ↔ group and version: what discovery (gvk.ts) and the
 * OpenAPI schemas (openapi-schemas.ts) both need, kept apart so neither imports the other.
 */

/** `apps/v1` or `v1`. */
export function apiVersionOf(gv: { readonly group: string; readonly version: string }): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** Splits an apiVersion (`apps/v1`, `v1`) into group and version. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
