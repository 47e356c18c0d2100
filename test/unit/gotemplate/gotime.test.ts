// The pure pieces of the Go time port that the differential tests reach only indirectly:
// TZif decoding of hand-built files, the footer rule parser, LoadLocation's name rules
// and $TZ fallbacks, and the calendar arithmetic against JavaScript's own.

import { afterEach, describe, expect, it } from '@jest/globals';
import {
  civilDate,
  dateToAbsDays,
  weekday,
  yearYday,
} from '../../../src/gotemplate/gotime/civil.ts';
import { durationString, parseDuration } from '../../../src/gotemplate/gotime/duration.ts';
import { format } from '../../../src/gotemplate/gotime/format.ts';
import { dateOf, setLoc, unix } from '../../../src/gotemplate/gotime/time.ts';
import { tzset } from '../../../src/gotemplate/gotime/tzrule.ts';
import {
  LoadLocation,
  Local,
  UTC,
  buildLocation,
  localLocation,
  lookup,
  parseTZif,
} from '../../../src/gotemplate/gotime/zoneinfo.ts';

function be32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

interface Block {
  times: number[];
  indices: number[];
  zones: [offset: number, isDST: number, abbrevIndex: number][];
  abbrevs: string;
}

/** A TZif body (header + data) with 4- or 8-byte transition times. */
function body(version: string, b: Block, wide: boolean): number[] {
  const out: number[] = [
    ...Buffer.from('TZif'),
    version.charCodeAt(0) || 0,
    ...new Array<number>(15).fill(0),
  ];
  const abbrev = [...Buffer.from(b.abbrevs, 'latin1')];
  out.push(...be32(0), ...be32(0), ...be32(0), ...be32(b.times.length), ...be32(b.zones.length));
  out.push(...be32(abbrev.length));
  for (const t of b.times) {
    if (wide) out.push(...be32(Math.floor(t / 2 ** 32)), ...be32(t >>> 0));
    else out.push(...be32(t >>> 0));
  }
  out.push(...b.indices);
  for (const [off, dst, ai] of b.zones) out.push(...be32(off >>> 0), dst, ai);
  out.push(...abbrev);
  return out;
}

const twoZones: Block = {
  times: [0, 15552000],
  indices: [1, 0],
  zones: [
    [3600, 0, 0],
    [7200, 1, 4],
  ],
  abbrevs: 'AAA\0BBB\0',
};

describe('parseTZif', () => {
  it('reads a version 1 file', () => {
    const z = parseTZif(Uint8Array.from(body('\0', twoZones, false)));
    expect(z).toEqual({
      zones: [
        { name: 'AAA', offset: 3600, isDST: false },
        { name: 'BBB', offset: 7200, isDST: true },
      ],
      tx: [
        { when: 0n, index: 1 },
        { when: 15552000n, index: 0 },
      ],
      extend: '',
    });
  });

  it('skips the 32-bit data of a version 2 file and reads the footer', () => {
    const v1 = body('2', { ...twoZones, times: [5], indices: [0] }, false);
    const v2 = body('2', { ...twoZones, times: [-(2 ** 40), 15552000], indices: [1, 0] }, true);
    const z = parseTZif(Uint8Array.from([...v1, ...v2, ...Buffer.from('\nAAA-1\n')]));
    expect(z?.tx).toEqual([
      { when: -(2n ** 40n), index: 1 },
      { when: 15552000n, index: 0 },
    ]);
    expect(z?.extend).toBe('AAA-1');
  });

  it('covers all time with zone 0 when there are no transitions', () => {
    const z = parseTZif(
      Uint8Array.from(body('\0', { ...twoZones, times: [], indices: [] }, false)),
    );
    expect(z?.tx).toEqual([{ when: -(1n << 63n), index: 0 }]);
  });

  it('rejects what Go rejects', () => {
    const good = body('\0', twoZones, false);
    expect(parseTZif(Buffer.from('not a zone file'))).toBeUndefined();
    expect(
      parseTZif(Uint8Array.from([...good.slice(0, 4), 0x34, ...good.slice(5)])),
    ).toBeUndefined();
    expect(parseTZif(Uint8Array.from(good.slice(0, good.length - 3)))).toBeUndefined();
    expect(
      parseTZif(Uint8Array.from(body('\0', { ...twoZones, indices: [1, 2] }, false))),
    ).toBeUndefined();
    expect(
      parseTZif(
        Uint8Array.from(body('\0', { times: [], indices: [], zones: [], abbrevs: '' }, false)),
      ),
    ).toBeUndefined();
    expect(
      parseTZif(
        Uint8Array.from(
          body(
            '\0',
            {
              ...twoZones,
              zones: [
                [0, 0, 8],
                [0, 0, 0],
              ],
            },
            false,
          ),
        ),
      ),
    ).toBeUndefined();
  });

  it('looks up zones by transition, before the first and via the load-time cache', () => {
    const loc = buildLocation(
      'Test',
      parseTZif(Uint8Array.from(body('\0', twoZones, false)))!,
      100n,
    );
    expect(lookup(loc, -5n)).toMatchObject({ name: 'AAA', offset: 3600 });
    expect(lookup(loc, 100n)).toMatchObject({ name: 'BBB', start: 0n, end: 15552000n });
    expect(lookup(loc, 15552000n)).toMatchObject({ name: 'AAA', end: (1n << 63n) - 1n });
  });
});

describe('tzset', () => {
  // 2024-07-01T00:00:00Z and 2024-01-01T00:00:00Z.
  const july = 1719792000n;
  const january = 1704067200n;

  it('applies northern and southern hemisphere rules', () => {
    expect(tzset('EST5EDT,M3.2.0,M11.1.0', 0n, july)).toMatchObject({
      name: 'EDT',
      offset: -4 * 3600,
      isDST: true,
    });
    expect(tzset('EST5EDT,M3.2.0,M11.1.0', 0n, january)).toMatchObject({
      name: 'EST',
      isDST: false,
    });
    expect(tzset('AEST-10AEDT,M10.1.0,M4.1.0/3', 0n, january)).toMatchObject({
      name: 'AEDT',
      offset: 11 * 3600,
      isDST: true,
    });
    expect(tzset('<+1030>-10:30<+11>-11,M10.1.0,M4.1.0', 0n, july)).toMatchObject({
      name: '+1030',
      offset: 10.5 * 3600,
    });
  });

  it('defaults the DST offset and rules, and takes Julian and day-of-year rules', () => {
    expect(tzset('EST5EDT', 0n, july)).toMatchObject({ name: 'EDT', offset: -4 * 3600 });
    expect(tzset('XXX3YYY,J60/0,J300', 0n, july)?.name).toBe('YYY');
    expect(tzset('XXX3YYY,59,300', 0n, july)?.name).toBe('YYY');
    expect(tzset('XXX3YYY2;M3.2.0/-1:30:15,M11.1.0/167', 0n, july)?.name).toBe('YYY');
  });

  it('gives a fixed zone from the last transition on when there is no DST', () => {
    expect(tzset('<-03>3', 42n, july)).toEqual({
      name: '-03',
      offset: -3 * 3600,
      start: 42n,
      end: (1n << 63n) - 1n,
      isDST: false,
    });
  });

  it('fails on malformed rules', () => {
    for (const s of [
      '',
      'AB5',
      '<AB',
      'EST',
      'EST5EDT,M13.1.0,M11.1.0',
      'EST5EDT,M3.6.0,M11.1.0',
      'EST5EDT,M3.2.7,M11.1.0',
      'EST5EDT,M3.2.0',
      'EST5EDT,M3.2.0,M11.1.0x',
      'EST5EDT!M3.2.0,M11.1.0',
      'EST169',
      'EST5EDT,J0,J365',
      'EST5EDT,366,1',
    ])
      expect(tzset(s, 0n, july)).toBeUndefined();
  });
});

describe('LoadLocation', () => {
  const saved = { TZ: process.env.TZ, ZONEINFO: process.env.ZONEINFO };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('maps the special names and rejects path-like ones', () => {
    expect(LoadLocation('')).toBe(UTC);
    expect(LoadLocation('UTC')).toBe(UTC);
    expect(LoadLocation('Local')).toBe(Local);
    for (const bad of ['../zoneinfo/UTC', 'America/../UTC', '/etc/localtime', '\\UTC'])
      expect(LoadLocation(bad)).toBeUndefined();
  });

  it('fails for missing files, directories and non-TZif files', () => {
    delete process.env.ZONEINFO;
    expect(LoadLocation('Nowhere/Special')).toBeUndefined();
    expect(LoadLocation('America')).toBeUndefined();
    expect(LoadLocation('zone.tab')).toBeUndefined();
  });

  it('hands out a new location per call, as Go does', () => {
    const a = LoadLocation('Europe/Berlin');
    const b = LoadLocation('Europe/Berlin');
    expect(a?.name).toBe('Europe/Berlin');
    expect(a).not.toBe(b);
  });

  it('falls back to UTC for an unloadable $TZ', () => {
    process.env.TZ = 'Nowhere/Special';
    expect(localLocation()).toMatchObject({ name: 'UTC', zones: [] });
    process.env.TZ = '';
    expect(localLocation()).toMatchObject({ name: 'UTC', zones: [] });
    process.env.TZ = '/nonexistent/file';
    expect(localLocation()).toMatchObject({ name: 'UTC', zones: [] });
    process.env.TZ = ':America/Sao_Paulo';
    expect(localLocation().name).toBe('America/Sao_Paulo');
    const t = dateOf(2024n, 7n, 1n, 0n, 0n, 0n, 0n, Local);
    expect(format(t, '2006-01-02 15:04 MST -0700')).toBe('2024-07-01 00:00 -03 -0300');
  });
});

describe('calendar arithmetic', () => {
  it('agrees with JavaScript dates from 1600 to 2400', () => {
    const step = 86400 * 1000 * 97;
    for (let ms = Date.UTC(1600, 0, 1); ms < Date.UTC(2400, 0, 1); ms += step) {
      const d = new Date(ms);
      const t = unix(BigInt(ms / 1000), 0n);
      expect(format(setLoc(t, UTC), '2006-01-02 Mon')).toBe(
        `${String(d.getUTCFullYear()).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')} ${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()]}`,
      );
      const abs = dateToAbsDays(
        BigInt(d.getUTCFullYear()),
        d.getUTCMonth() + 1,
        BigInt(d.getUTCDate()),
      );
      expect(civilDate(abs)).toEqual({
        year: BigInt(d.getUTCFullYear()),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
      });
      expect(weekday(abs)).toBe(d.getUTCDay());
      const jan1 = Date.UTC(d.getUTCFullYear(), 0, 1);
      expect(yearYday(abs).yday).toBe(Math.round((ms - jan1) / 86400000) + 1);
    }
  });
});

describe('durations', () => {
  it('formats and parses like Go', () => {
    expect(durationString(0n)).toBe('0s');
    expect(durationString(1500n)).toBe('1.5µs');
    expect(durationString(-(1n << 63n))).toBe('-2562047h47m16.854775808s');
    expect(parseDuration('1h2m3.5s')).toBe(3723500000000n);
    expect(parseDuration('-9223372036854775808ns')).toBe(-(1n << 63n));
    expect(() => parseDuration('9223372036854775808ns')).toThrow(
      'time: invalid duration "9223372036854775808ns"',
    );
  });
});
