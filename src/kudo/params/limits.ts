/**
 * Limits on Instance parameters, with their reasons (docs/limits.md is the user-facing
 * version). Every value a user types is decoded by the webhook on each write and by the
 * renderer on each plan pass; these bounds keep one Instance from costing the process more
 * than a known amount of memory and time.
 */

/**
 * Bytes (UTF-8) of one parameter value. An Instance is stored in etcd, whose default limit
 * is 1.5 MiB per object (status included); half a MiB leaves room for several large values
 * and the status, and keeps one value's YAML decoding in the low milliseconds.
 */
export const MAX_PARAMETER_VALUE_BYTES = 512 * 1024;

/** Bytes of all parameter names and values of one Instance: well under etcd's 1.5 MiB. */
export const MAX_PARAMETERS_BYTES = 1024 * 1024;

/**
 * Nesting levels of an array or map value. Configuration is rarely deeper than ten; deep
 * nesting only costs stack in every consumer (YAML parser, template engine, JSON encoder).
 */
export const MAX_YAML_DEPTH = 64;

/**
 * Aliases (`*a`) resolved in one value: YAML anchors let a few bytes expand into gigabytes
 * (the "billion laughs"); KUDO packages have no use for more than a handful.
 */
export const MAX_YAML_ALIASES = 100;

/**
 * Characters of array/map values admission decodes on its own event loop per request; the
 * rest go to the admission worker (a process with a deadline and a heap limit). The costliest
 * shapes the nesting and alias limits still let through decode in a few milliseconds at this
 * size, and four times as much held the thread that answers every webhook and renews the
 * Lease too long (bench/README.md, "Inline decoding"). A budget per request, not per value, so many small values cannot add up.
 */
export const MAX_INLINE_DECODE_CHARS = 4 * 1024;

/** How much of a user's value a message quotes: enough to recognise it, never megabytes. */
export const EXCERPT_CHARS = 40;

/** `"abc…" (1234 bytes)`: a short, JSON-quoted excerpt of user input for messages. */
export function excerpt(value: unknown): string {
  if (typeof value !== 'string') return describeType(value);
  if (value.length <= EXCERPT_CHARS) return JSON.stringify(value);
  // Cut at a code point boundary, so the excerpt never ends in half a surrogate pair.
  const cut = Array.from(value.slice(0, EXCERPT_CHARS + 1))
    .slice(0, EXCERPT_CHARS)
    .join('');
  return `${JSON.stringify(cut).slice(0, -1)}…" (${Buffer.byteLength(value)} bytes)`;
}

/** `a number`, `a map`, `a list`, `null`: what a non-string value is, for messages. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return `a ${typeof value}`;
}
