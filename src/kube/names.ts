/**
 * `namespace/name` of a namespaced object or reference, the one way logs, messages and
 * annotations name one. An absent part reads as empty (`/name`, `ns/`) rather than
 * "undefined", so a malformed object still gets a readable label.
 */
export function namespacedName(
  ref: { readonly namespace?: string | undefined; readonly name?: string | undefined } | undefined,
): string {
  return `${ref?.namespace ?? ''}/${ref?.name ?? ''}`;
}
