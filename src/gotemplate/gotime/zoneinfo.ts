// Go's time.Location: zones read from TZif files on disk, found where Go looks for them,
// and Local initialised from $TZ the way Go's initLocal does. Intl is no substitute: its
// abbreviations differ from tzdata's (it prints GMT+1 where Go prints CET).
//
// Go reads $TZ once per process; a template engine embedded in a long-running process
// (and its tests) may see it change, so Local is resolved on each use and cached per
// value. Parsed files are cached per zone name and search path. Everything else is
// immutable.

import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { i64 } from './civil.ts';
import { fromBytes } from './quote.ts';
import { alpha, omega, tzset } from './tzrule.ts';
import type { ZoneAt } from './tzrule.ts';

export interface Zone {
  name: string;
  offset: number;
  isDST: boolean;
}

export interface ZoneTrans {
  when: bigint;
  index: number;
}

interface ZoneCache {
  start: bigint;
  end: bigint;
  zone: Zone;
}

export class Location {
  constructor(
    readonly name: string,
    readonly zones: readonly Zone[],
    readonly tx: readonly ZoneTrans[],
    /** The TZ rule string from the file's footer, as a byte string. */
    readonly extend: string,
    /**
     * The zone in effect when the location was loaded, with the interval it covers. Go
     * consults it before the transitions, and it can answer differently: built from the
     * footer rule, it may start before the last transition.
     */
    readonly cache?: ZoneCache,
  ) {}
}

export const UTC = new Location('UTC', [], [], '');

/** Stands for whatever $TZ selects; get() resolves it. */
export const Local = new Location('Local', [], [], '');

/** A Time's location: undefined is Go's nil, which means UTC. */
export function get(l: Location | undefined): Location {
  if (l === undefined) return UTC;
  if (l === Local) return localLocation();
  return l;
}

/** reflect.DeepEqual on two *Location: the same pointer, or equal contents. */
export function deepEqualLocations(a: Location | undefined, b: Location | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === Local || b === Local) return false;
  const sameZone = (x: Zone | undefined, y: Zone | undefined): boolean =>
    x === y ||
    (x !== undefined &&
      y !== undefined &&
      x.name === y.name &&
      x.offset === y.offset &&
      x.isDST === y.isDST);
  return (
    a.name === b.name &&
    a.extend === b.extend &&
    a.zones.length === b.zones.length &&
    a.zones.every((z, i) => sameZone(z, b.zones[i])) &&
    a.tx.length === b.tx.length &&
    a.tx.every((t, i) => t.when === b.tx[i]!.when && t.index === b.tx[i]!.index) &&
    a.cache?.start === b.cache?.start &&
    a.cache?.end === b.cache?.end &&
    sameZone(a.cache?.zone, b.cache?.zone)
  );
}

export function locationName(l: Location | undefined): string {
  return get(l).name;
}

function fixedZone(name: string, offset: number): Location {
  const zone = { name, offset, isDST: false };
  return new Location(name, [zone], [{ when: alpha, index: 0 }], '', {
    start: alpha,
    end: omega,
    zone,
  });
}

/** Go hands out one shared location per whole-hour unnamed offset. */
const unnamedFixedZones = new Map<number, Location>();

export function FixedZone(name: string, offset: number): Location {
  const hour = Math.trunc(offset / 3600);
  if (name === '' && hour >= -12 && hour <= 14 && hour * 3600 === offset) {
    let l = unnamedFixedZones.get(hour);
    if (!l) {
      l = fixedZone('', offset);
      unnamedFixedZones.set(hour, l);
    }
    return l;
  }
  return fixedZone(name, offset);
}

function firstZoneUsed(l: Location): boolean {
  return l.tx.some((t) => t.index === 0);
}

/** tzcode's choice of zone for instants before the first transition. */
function lookupFirstZone(l: Location): number {
  if (!firstZoneUsed(l)) return 0;
  const first = l.tx[0];
  if (first && l.zones[first.index]!.isDST) {
    for (let zi = first.index - 1; zi >= 0; zi--) if (!l.zones[zi]!.isDST) return zi;
  }
  const std = l.zones.findIndex((z) => !z.isDST);
  return std >= 0 ? std : 0;
}

/** The zone in effect at `sec` (Unix seconds) and the interval around it. */
export function lookup(loc: Location | undefined, sec: bigint): ZoneAt {
  const l = get(loc);
  if (l.zones.length === 0)
    return { name: 'UTC', offset: 0, start: alpha, end: omega, isDST: false };
  const c = l.cache;
  if (c && c.start <= sec && sec < c.end) {
    return {
      name: c.zone.name,
      offset: c.zone.offset,
      start: c.start,
      end: c.end,
      isDST: c.zone.isDST,
    };
  }
  const first = l.tx[0];
  if (first === undefined || sec < first.when) {
    const z = l.zones[lookupFirstZone(l)]!;
    return {
      name: z.name,
      offset: z.offset,
      start: alpha,
      end: first ? first.when : omega,
      isDST: z.isDST,
    };
  }
  let end = omega;
  let lo = 0;
  let hi = l.tx.length;
  while (hi - lo > 1) {
    const m = (lo + hi) >>> 1;
    const lim = l.tx[m]!.when;
    if (sec < lim) {
      end = lim;
      hi = m;
    } else lo = m;
  }
  const z = l.zones[l.tx[lo]!.index]!;
  const start = l.tx[lo]!.when;
  if (lo === l.tx.length - 1 && l.extend !== '') {
    const e = tzset(l.extend, start, sec);
    if (e) return { ...e, name: fromBytes(e.name) };
  }
  return { name: z.name, offset: z.offset, start, end, isDST: z.isDST };
}

/**
 * The offset of the zone abbreviated `name` around the pseudo-Unix time `unix`. A zone
 * actually in effect then wins (Sydney uses "EST" for both standard and summer time).
 */
export function lookupName(
  loc: Location | undefined,
  name: string,
  unix: bigint,
): number | undefined {
  const l = get(loc);
  for (const z of l.zones) {
    if (z.name === name && lookup(l, i64(unix - BigInt(z.offset))).name === z.name) return z.offset;
  }
  for (const z of l.zones) if (z.name === name) return z.offset;
  return undefined;
}

// ---- TZif files ----

class Reader {
  pos = 0;
  error = false;
  constructor(readonly p: Uint8Array) {}
  read(n: number): Uint8Array {
    if (this.p.length - this.pos < n) {
      this.pos = this.p.length;
      this.error = true;
      return new Uint8Array(0);
    }
    const r = this.p.subarray(this.pos, this.pos + n);
    this.pos += n;
    return r;
  }
  big4(): number | undefined {
    const p = this.read(4);
    if (p.length < 4) {
      this.error = true;
      return undefined;
    }
    return ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0;
  }
  big8(): bigint | undefined {
    const a = this.big4();
    const b = this.big4();
    if (a === undefined || b === undefined) {
      this.error = true;
      return undefined;
    }
    return (BigInt(a) << 32n) | BigInt(b);
  }
  byte(): number | undefined {
    const p = this.read(1);
    if (p.length < 1) {
      this.error = true;
      return undefined;
    }
    return p[0]!;
  }
  rest(): Uint8Array {
    const r = this.p.subarray(this.pos);
    this.pos = this.p.length;
    return r;
  }
}

function cString(p: Uint8Array): string {
  const nul = p.indexOf(0);
  return Buffer.from(nul >= 0 ? p.subarray(0, nul) : p).toString('utf8');
}

/** The parts of a location read from its file; the load-time cache is computed per load. */
interface ZoneData {
  zones: Zone[];
  tx: ZoneTrans[];
  extend: string;
}

type Counts = [number, number, number, number, number, number];

/** LoadLocationFromTZData's parsing; undefined is "malformed time zone information". */
export function parseTZif(data: Uint8Array): ZoneData | undefined {
  const d = new Reader(data);
  if (Buffer.from(d.read(4)).toString('latin1') !== 'TZif') return undefined;
  const p = d.read(16);
  if (p.length !== 16) return undefined;
  // Version 1 has 32-bit times only; 2 and 3 repeat everything with 64-bit times.
  const version = p[0] === 0 ? 1 : p[0] === 0x32 ? 2 : p[0] === 0x33 ? 3 : undefined;
  if (version === undefined) return undefined;
  // Counts of: UTC/local indicators, standard/wall indicators, leap seconds,
  // transitions, local time types, abbreviation bytes.
  const counts = (): Counts | undefined => {
    const n: number[] = [];
    for (let i = 0; i < 6; i++) {
      const v = d.big4();
      if (v === undefined) return undefined;
      n.push(v);
    }
    return n as Counts;
  };
  let n = counts();
  if (!n) return undefined;
  const is64 = version > 1;
  if (is64) {
    const [nUTCLocal, nStdWall, nLeap, nTime, nZone, nChar] = n;
    d.read(nTime * 4 + nTime + nZone * 6 + nChar + nLeap * 8 + nStdWall + nUTCLocal + 4 + 16);
    n = counts();
    if (!n) return undefined;
  }
  const [nUTCLocal, nStdWall, nLeap, nTime, nZone, nChar] = n;
  const size = is64 ? 8 : 4;
  const txtimes = new Reader(d.read(nTime * size));
  const txzones = d.read(nTime);
  const zonedata = new Reader(d.read(nZone * 6));
  const abbrev = d.read(nChar);
  d.read(nLeap * (size + 4));
  d.read(nStdWall);
  d.read(nUTCLocal);
  if (d.error) return undefined;

  let extend = '';
  const rest = d.rest();
  if (rest.length > 2 && rest[0] === 0x0a && rest[rest.length - 1] === 0x0a) {
    extend = Buffer.from(rest.subarray(1, rest.length - 1)).toString('latin1');
  }

  // A file without zones is useless, and a fake transition to zone 0 would index nothing.
  if (nZone === 0) return undefined;
  const zones: Zone[] = [];
  for (let i = 0; i < nZone; i++) {
    const off = zonedata.big4();
    if (off === undefined) return undefined;
    const isDST = zonedata.byte();
    if (isDST === undefined) return undefined;
    const b = zonedata.byte();
    if (b === undefined || b >= abbrev.length) return undefined;
    zones.push({ offset: off | 0, isDST: isDST !== 0, name: cString(abbrev.subarray(b)) });
  }

  const tx: ZoneTrans[] = [];
  for (let i = 0; i < nTime; i++) {
    let when: bigint;
    if (!is64) {
      const v = txtimes.big4();
      if (v === undefined) return undefined;
      when = BigInt(v | 0);
    } else {
      const v = txtimes.big8();
      if (v === undefined) return undefined;
      when = BigInt.asIntN(64, v);
    }
    const index = txzones[i]!;
    if (index >= zones.length) return undefined;
    tx.push({ when, index });
  }
  // Fixed zones like Etc/GMT+5 have no transitions: one covering all of time.
  if (tx.length === 0) tx.push({ when: alpha, index: 0 });
  return { zones, tx, extend };
}

function findZone(zones: readonly Zone[], z: Zone): Zone | undefined {
  return zones.find((x) => x.name === z.name && x.offset === z.offset && x.isDST === z.isDST);
}

/** A Location as LoadLocationFromTZData builds it, including the cache for `nowSec`. */
export function buildLocation(name: string, data: ZoneData, nowSec: bigint): Location {
  const { zones, tx, extend } = data;
  let cache: ZoneCache | undefined;
  for (let i = 0; i < tx.length; i++) {
    const t = tx[i]!;
    const next = tx[i + 1];
    if (t.when <= nowSec && (next === undefined || nowSec < next.when)) {
      cache = { start: t.when, end: next ? next.when : omega, zone: zones[t.index]! };
      if (!next && extend !== '') {
        const e = tzset(extend, t.when, nowSec);
        if (e) {
          const z = { name: fromBytes(e.name), offset: e.offset, isDST: e.isDST };
          cache = { start: e.start, end: e.end, zone: findZone(zones, z) ?? z };
        }
      }
      break;
    }
  }
  return new Location(name, zones, tx, extend, cache);
}

function nowUnixSeconds(): bigint {
  return BigInt(Math.floor(Date.now() / 1000));
}

// ---- finding the files ----

const maxFileSize = 10 << 20;

/** Go tells "no such file" from other failures only for its error text; either way the
 * next source is tried. */
type Read = Uint8Array | undefined;

function readFile(path: string): Read {
  try {
    const st = statSync(path);
    if (st.isFile() && st.size > maxFileSize) return undefined;
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function preadn(fd: number, buf: Uint8Array, off: number): boolean {
  let pos = off;
  if (off < 0) pos = fstatSync(fd).size + off;
  if (pos < 0) return false;
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, pos + done);
    if (n <= 0) return false;
    done += n;
  }
  return true;
}

function get4(b: Uint8Array, i: number): number {
  if (b.length - i < 4) return 0;
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

function get2(b: Uint8Array, i: number): number {
  if (b.length - i < 2) return 0;
  return b[i]! | (b[i + 1]! << 8);
}

/** One file from an uncompressed zip (Go ships its zone database as one). */
function readFromZip(zipfile: string, name: string): Read {
  let fd: number;
  try {
    fd = openSync(zipfile, 'r');
  } catch {
    return undefined;
  }
  try {
    const tail = new Uint8Array(22);
    if (!preadn(fd, tail, -22) || get4(tail, 0) !== 0x06054b50) return undefined;
    const n = get2(tail, 10);
    const size = get4(tail, 12);
    const off = get4(tail, 16);
    let dir = new Uint8Array(size);
    if (!preadn(fd, dir, off)) return undefined;
    const want = Buffer.from(name, 'utf8');
    for (let i = 0; i < n; i++) {
      if (get4(dir, 0) !== 0x02014b50) break;
      const meth = get2(dir, 10);
      const fsize = get4(dir, 24);
      const namelen = get2(dir, 28);
      const xlen = get2(dir, 30);
      const fclen = get2(dir, 32);
      const foff = get4(dir, 42);
      const zname = dir.subarray(46, 46 + namelen);
      dir = dir.subarray(46 + namelen + xlen + fclen);
      if (!want.equals(zname)) continue;
      if (meth !== 0) return undefined;
      const hdr = new Uint8Array(30 + namelen);
      if (
        !preadn(fd, hdr, foff) ||
        get4(hdr, 0) !== 0x04034b50 ||
        get2(hdr, 8) !== meth ||
        get2(hdr, 26) !== namelen ||
        !want.equals(hdr.subarray(30, 30 + namelen))
      ) {
        return undefined;
      }
      const data = new Uint8Array(fsize);
      if (!preadn(fd, data, foff + 30 + namelen + get2(hdr, 28))) return undefined;
      return data;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function readFromDirOrZip(dir: string, name: string): Read {
  if (dir.length > 4 && dir.endsWith('.zip')) return readFromZip(dir, name);
  return readFile(dir !== '' ? `${dir}/${name}` : name);
}

/** Where Go looks on Unix (Solaris, IRIX and NixOS paths included). */
const platformZoneSources = [
  '/usr/share/zoneinfo/',
  '/usr/share/lib/zoneinfo/',
  '/usr/lib/locale/TZ/',
  '/etc/zoneinfo',
];

/**
 * The first source holding a valid file for `name`, then $GOROOT/lib/time/zoneinfo.zip
 * (a -trimpath Go binary only knows GOROOT from the environment).
 */
function loadZoneData(name: string, sources: readonly string[]): ZoneData | undefined {
  const goroot = process.env.GOROOT ?? '';
  const all = goroot !== '' ? [...sources, `${goroot}/lib/time/zoneinfo.zip`] : sources;
  for (const source of all) {
    const data = readFromDirOrZip(source, name);
    if (!data) continue;
    const z = parseTZif(data);
    if (z) return z;
  }
  return undefined;
}

/**
 * Parsed zone files by lookup key. Only successes are kept, and only so many: zone names
 * can come from template data, and neither a stream of bogus names nor spellings of one
 * path ("America/./New_York") may grow memory without bound.
 */
const zoneDataCache = new Map<string, ZoneData>();
const ZONE_CACHE_LIMIT = 1024;

function cachedZoneData(key: string, load: () => ZoneData | undefined): ZoneData | undefined {
  const hit = zoneDataCache.get(key);
  if (hit) return hit;
  const z = load();
  if (!z) return undefined;
  if (zoneDataCache.size >= ZONE_CACHE_LIMIT) {
    const oldest = zoneDataCache.keys().next();
    if (!oldest.done) zoneDataCache.delete(oldest.value);
  }
  zoneDataCache.set(key, z);
  return z;
}

function containsDotDot(s: string): boolean {
  return s.includes('..');
}

/** time.LoadLocation; undefined for every failure (sprig only falls back to UTC). */
export function LoadLocation(name: string): Location | undefined {
  if (name === '' || name === 'UTC') return UTC;
  if (name === 'Local') return Local;
  // No IANA name has "..", or starts with a slash.
  if (containsDotDot(name) || name[0] === '/' || name[0] === '\\') return undefined;
  const zoneinfo = process.env.ZONEINFO ?? '';
  const key = `${zoneinfo}\0${process.env.GOROOT ?? ''}\0${name}`;
  const data = cachedZoneData(key, () => {
    if (zoneinfo !== '') {
      const d = readFromDirOrZip(zoneinfo, name);
      if (d) {
        const z = parseTZif(d);
        if (z) return z;
      }
    }
    return loadZoneData(name, platformZoneSources);
  });
  // Go builds a new Location (and its cache) on every call.
  return data ? buildLocation(name, data, nowUnixSeconds()) : undefined;
}

const localCache = new Map<string, Location>();

/** What Local stands for under the current $TZ (Go's initLocal). */
export function localLocation(): Location {
  const tz = process.env.TZ;
  const key = tz === undefined ? '\0unset' : tz;
  let l = localCache.get(key);
  if (!l) {
    l = initLocal(tz);
    localCache.set(key, l);
  }
  return l;
}

function initLocal(env: string | undefined): Location {
  const fallback = new Location('UTC', [], [], '');
  const now = nowUnixSeconds();
  if (env === undefined) {
    const z = loadZoneData('localtime', ['/etc']);
    return z ? buildLocation('Local', z, now) : fallback;
  }
  let tz = env;
  if (tz === '') return fallback;
  if (tz[0] === ':') tz = tz.slice(1);
  if (tz !== '' && tz[0] === '/') {
    const z = loadZoneData(tz, ['']);
    if (z) return buildLocation(tz === '/etc/localtime' ? 'Local' : tz, z, now);
  } else if (tz !== '' && tz !== 'UTC') {
    const z = loadZoneData(tz, platformZoneSources);
    if (z) return buildLocation(tz, z, now);
  }
  return fallback;
}
