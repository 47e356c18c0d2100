// The date functions under different $TZ (and $ZONEINFO) settings: Planwright reads them
// when a template runs, the oracle when its process starts, so each setting is applied to
// both and the outputs compared. The corpus files only ever see the machine's own zone.

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { TemplateError, renderTemplate } from '../../src/gotemplate/index.ts';
import { runOracle } from './oracle.ts';
import type { OracleCase, OracleResult } from './oracle.ts';

const templates = [
  '{{ toDate "2006-01-02 15:04" "2024-07-01 12:00" }}',
  '{{ toDate "2006-01-02 15:04" "2024-01-15 12:00" }}',
  // A wall time skipped by a spring-forward and one repeated by a fall-back, in some zones.
  '{{ toDate "2006-01-02 15:04" "2024-03-10 02:30" }}|{{ toDate "2006-01-02 15:04" "2024-11-03 01:30" }}',
  '{{ toDate "2006-01-02 15:04" "2024-03-31 02:30" }}|{{ toDate "2006-01-02 15:04" "2024-10-27 02:30" }}',
  '{{ toDate "2006-01-02" "2100-01-01" }}|{{ toDate "2006-01-02" "2100-07-01" }}|{{ toDate "2006-01-02" "1900-01-01" }}',
  '{{ date "2006-01-02 15:04:05 MST -0700" 1700000000 }}|{{ htmlDate 0 }}|{{ date "Z07:00:00" .i64 }}',
  '{{ $t := toDate "2006-01-02" "2024-07-01" }}{{ $t.Location }}|{{ printf "%#v" $t }}|{{ $t.UTC }}|{{ $t.UTC.Local }}|{{ $t.IsDST }}|{{ $t.Unix }}',
  '{{ toDate "2006-01-02 MST" "2024-07-01 EDT" }}|{{ toDate "2006-01-02 MST" "2024-01-01 EST" }}|{{ toDate "2006-01-02 MST" "2024-07-01 CEST" }}|{{ toDate "2006-01-02 MST" "2024-07-01 IST" }}',
  '{{ toDate "2006-01-02 -0700" "2024-07-01 -0300" }}|{{ toDate "2006-01-02 -0700" "2024-07-01 -0400" }}|{{ toDate "2006-01-02 -0700" "2024-07-01 +0200" }}|{{ toDate "2006-01-02 MST -0700" "2024-07-01 XYZ -0400" }}',
  '{{ toDate "2006-01-02T15:04:05Z07:00" "2024-07-01T00:00:00-03:00" }}|{{ toDate "2006-01-02T15:04:05Z07:00" "2024-07-01T00:00:00+05:30" }}|{{ toDate "2006-01-02T15:04:05Z07:00" "2024-07-01T00:00:00-04:00" }}',
  '{{ dateInZone "2006-01-02 15:04 MST" (toDate "2006-01-02" "2024-07-01") "Local" }}|{{ dateInZone "2006-01-02 15:04 MST" 0 "New_York" }}|{{ dateInZone "2006-01-02 15:04 MST" 0 "America/Chicago" }}',
  '{{ now.Location }}|{{ eq (date "2006-01-02 15" now) (now.Format "2006-01-02 15") }}|{{ ago now }}',
  '{{ (toDate "2006-01-02 15:04" "2024-03-09 12:00").AddDate 0 0 1 }}|{{ dateModify "24h" (toDate "2006-01-02 15:04" "2024-03-09 12:00") }}',
];

const data = { i64: { $int64: 1700000000 } };
const cases: OracleCase[] = templates.map((template) => ({ template, data }));

function renderTS(c: OracleCase): OracleResult {
  try {
    return { output: renderTemplate('tpl', c.template, { i64: 1700000000n }, { funcs: 'kudo' }) };
  } catch (e) {
    if (e instanceof TemplateError) return { output: '', error: e.message };
    throw e;
  }
}

const goZip = '/usr/local/go/lib/time/zoneinfo.zip';

interface Setting {
  name: string;
  env: Record<string, string | undefined>;
}

const settings: Setting[] = [
  { name: 'TZ unset (/etc/localtime)', env: { TZ: undefined } },
  { name: 'TZ=America/Sao_Paulo', env: { TZ: 'America/Sao_Paulo' } },
  { name: 'TZ=America/New_York', env: { TZ: 'America/New_York' } },
  { name: 'TZ=:Europe/Berlin', env: { TZ: ':Europe/Berlin' } },
  { name: 'TZ=Australia/Lord_Howe', env: { TZ: 'Australia/Lord_Howe' } },
  { name: 'TZ=/usr/share/zoneinfo/Asia/Kolkata', env: { TZ: '/usr/share/zoneinfo/Asia/Kolkata' } },
  { name: 'TZ=/etc/localtime', env: { TZ: '/etc/localtime' } },
  { name: 'TZ empty (UTC)', env: { TZ: '' } },
  { name: 'TZ=UTC', env: { TZ: 'UTC' } },
  { name: 'TZ bogus', env: { TZ: 'Bogus/Nowhere' } },
  { name: 'TZ=../etc/localtime', env: { TZ: '../etc/localtime' } },
  {
    name: 'ZONEINFO a directory',
    env: { TZ: 'Europe/Berlin', ZONEINFO: '/usr/share/zoneinfo/America' },
  },
  ...(existsSync(goZip)
    ? [{ name: "ZONEINFO Go's zip", env: { TZ: 'America/New_York', ZONEINFO: goZip } }]
    : []),
];

describe.each(settings)('date functions with $name', ({ env }) => {
  const saved: Record<string, string | undefined> = {};

  beforeEach(() => {
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('renders as Go does', async () => {
    const go = await runOracle(cases, { ...process.env });
    const ts = cases.map(renderTS);
    expect(ts).toEqual(go);
  });
});
