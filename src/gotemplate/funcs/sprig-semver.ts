// sprig v2's semver and semverCompare: Masterminds/semver v1.5.0, as KUDO's sprig pins it.

import { GoInt, GoObject } from '../values.ts';
import type { FuncDef } from '../values.ts';
import { fn, goErr } from './convert.ts';

/** A version as Masterminds/semver v3 parses it (lenient: `1.13` is 1.13.0, `v` allowed). */
export interface SemVersion {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: string;
  readonly meta: string;
  readonly original: string;
}

type Ver = SemVersion;

const verRe =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;

/** Masterminds' `NewVersion`; undefined where it reports "Invalid Semantic Version". */
export function parseSemver(s: string): SemVersion | undefined {
  const m = verRe.exec(s);
  if (!m) return undefined;
  return {
    major: BigInt(m[1]!),
    minor: BigInt((m[2] ?? '.0').slice(1)),
    patch: BigInt((m[3] ?? '.0').slice(1)),
    pre: m[5] ?? '',
    meta: m[8] ?? '',
    original: s,
  };
}

function parseVersion(s: string): Ver {
  return parseSemver(s) ?? goErr('Invalid Semantic Version');
}

function verString(v: Ver): string {
  return `${v.major}.${v.minor}.${v.patch}${v.pre ? '-' + v.pre : ''}${v.meta ? '+' + v.meta : ''}`;
}

function comparePre(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const ap = a.split('.');
  const bp = b.split('.');
  for (let i = 0; i < Math.max(ap.length, bp.length); i++) {
    const x = ap[i];
    const y = bp[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xn) return -1;
    if (yn) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Semver precedence (metadata ignored): negative, zero or positive. */
export function compareSemver(a: SemVersion, b: SemVersion): number {
  return compare(a, b);
}

function compare(a: Ver, b: Ver): number {
  for (const k of ['major', 'minor', 'patch'] as const)
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  return comparePre(a.pre, b.pre);
}

function versionObject(v: Ver): GoObject {
  const num = (x: bigint) => () => new GoInt('int64', x);
  return new GoObject(
    '*semver.Version',
    {
      Major: { params: [], impl: num(v.major) },
      Minor: { params: [], impl: num(v.minor) },
      Patch: { params: [], impl: num(v.patch) },
      Prerelease: { params: [], impl: () => v.pre },
      Metadata: { params: [], impl: () => v.meta },
      Original: { params: [], impl: () => v.original },
      String: { params: [], impl: () => verString(v) },
    },
    () => verString(v),
  );
}

const CV =
  String.raw`(v?([0-9|xX*]+)(\.[0-9|xX*]+)?(\.[0-9|xX*]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?` +
  String.raw`(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?)`;
const constraintRe = new RegExp(`^\\s*(!=|>=|=>|<=|=<|~>|=|>|<|~|\\^|)\\s*${CV}\\s*$`);
const rangeRe = new RegExp(`\\s*${CV}\\s+-\\s+${CV}\\s*`, 'g');
const isX = (x: string): boolean => x === 'x' || x === 'X' || x === '*';

interface Constraint {
  readonly op: string;
  readonly con: Ver;
  readonly dirty: boolean;
  readonly minorDirty: boolean;
  readonly patchDirty: boolean;
}

/** Masterminds/semver v1.5.0 parseConstraint. */
function parseConstraint(c: string): Constraint {
  const m = constraintRe.exec(c);
  if (!m) goErr(`improper constraint: ${c}`);
  const [major, minor, patch, pre] = [m[3]!, m[4] ?? '', m[5] ?? '', m[6] ?? ''];
  let ver = m[2]!;
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major)) {
    ver = '0.0.0';
    dirty = true;
  } else if (isX(minor.slice(1)) || minor === '') {
    minorDirty = dirty = true;
    ver = `${major}.0.0${pre}`;
  } else if (isX(patch.slice(1))) {
    patchDirty = dirty = true;
    ver = `${major}${minor}.0${pre}`;
  }
  const con = parseSemver(ver) ?? goErr('constraint Parser Error');
  return { op: m[1]!, con, dirty, minorDirty, patchDirty };
}

function tilde(v: Ver, c: Constraint): boolean {
  if (compare(v, c.con) < 0) return false;
  const k = c.con;
  if (k.major === 0n && k.minor === 0n && k.patch === 0n && !c.minorDirty && !c.patchDirty)
    return true;
  if (v.major !== k.major) return false;
  return !(v.minor !== k.minor && !c.minorDirty);
}

/** One term's check, as semver v1.5.0's constraint functions. */
function check(v: Ver, c: Constraint): boolean {
  const k = c.con;
  // Every operator but != rejects a prerelease against a constraint without one.
  const preOut = v.pre !== '' && k.pre === '';
  switch (c.op) {
    case '!=':
      if (!c.dirty) return compare(v, k) !== 0;
      if (preOut) return false;
      if (k.major !== v.major) return true;
      return k.minor !== v.minor && !c.minorDirty;
    case '>':
      return !preOut && compare(v, k) === 1;
    case '>=':
    case '=>':
      return !preOut && compare(v, k) >= 0;
    case '<':
    case '<=':
    case '=<':
      if (preOut) return false;
      if (!c.dirty) return c.op === '<' ? compare(v, k) < 0 : compare(v, k) <= 0;
      if (v.major > k.major) return false;
      return !(v.minor > k.minor && !c.minorDirty);
    case '~':
    case '~>':
      return !preOut && tilde(v, c);
    case '^':
      return !preOut && compare(v, k) >= 0 && v.major === k.major;
    default:
      if (preOut) return false;
      return c.dirty ? tilde(v, c) : compare(v, k) === 0;
  }
}

/** semver v1.5.0 NewConstraint: `a - b` ranges, `||` alternatives of `,`-joined terms. */
function parseConstraints(text: string): Constraint[][] {
  const rewritten = text.replace(rangeRe, (_m, a: string, ...rest: unknown[]) => {
    return `>= ${a}, <= ${String(rest[9])}`;
  });
  return rewritten.split('||').map((alt) => alt.split(',').map(parseConstraint));
}

export const sprigSemver: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['semver', fn(['string'], (a) => versionObject(parseVersion(a[0])))],
  [
    'semverCompare',
    fn(['string', 'string'], (a) => {
      const cs = parseConstraints(a[0]);
      const v = parseVersion(a[1]);
      return cs.some((alt) => alt.every((c) => check(v, c)));
    }),
  ],
]);
