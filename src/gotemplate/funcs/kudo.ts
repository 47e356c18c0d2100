// The function map KUDO's renderer uses: sprig v2.22's TxtFuncMap minus the functions that
// would read the controller's environment or filesystem paths, plus toYaml; and the
// documented extensions from sprig v3 (kudoExtensions). Functions not
// implemented here are simply absent, so templates using them fail to parse with Go's
// `function "x" not defined` instead of rendering something wrong.

import type { FuncDef } from '../values.ts';
import { sprigCrypto } from './sprig-crypto.ts';
import { sprigDates } from './sprig-dates.ts';
import { sprigDefaults } from './sprig-defaults.ts';
import { sprigDicts } from './sprig-dicts.ts';
import { sprigEncoding } from './sprig-encoding.ts';
import { sprigLists } from './sprig-lists.ts';
import { sprigMath } from './sprig-math.ts';
import { sprigRegex } from './sprig-regex.ts';
import { sprigSemver } from './sprig-semver.ts';
import { sprigStrings } from './sprig-strings.ts';
import { yamlFuncs } from './yaml.ts';

const modules: ReadonlyMap<string, FuncDef>[] = [
  sprigStrings,
  sprigMath,
  sprigLists,
  sprigDicts,
  sprigDefaults,
  sprigEncoding,
  sprigRegex,
  sprigSemver,
  sprigDates,
  sprigCrypto,
  yamlFuncs,
];

/** Removed by KUDO (kudo/pkg/engine/renderer.New). */
export const kudoRemoved: readonly string[] = [
  'env',
  'expandenv',
  'base',
  'dir',
  'clean',
  'ext',
  'isAbs',
];

/**
 * Functions of KUDO's map that are deliberately absent, with the reason. A template using
 * one fails to parse (`function "x" not defined`) rather than render something else; the
 * coverage test keeps this list and Go's map in step.
 */
export const kudoNotImplemented: Readonly<Record<string, string>> = {
  genPrivateKey: 'key generation in a template: the secrets would differ on every render',
  genCA: 'certificate generation in a template: a new CA on every render',
  genCAWithKey: 'certificate generation in a template: a new CA on every render',
  genSelfSignedCert: 'certificate generation in a template: a new certificate on every render',
  genSelfSignedCertWithKey:
    'certificate generation in a template: a new certificate on every render',
  genSignedCert: 'certificate generation in a template: a new certificate on every render',
  genSignedCertWithKey: 'certificate generation in a template: a new certificate on every render',
  buildCustomCert: 'only useful with the certificate generators',
  bcrypt: 'needs a bcrypt implementation; a random salt makes every render differ',
  htpasswd: 'needs a bcrypt implementation; a random salt makes every render differ',
  getHostByName: 'a DNS lookup: rendering must not depend on the network, and cannot block',
};

/**
 * Functions Planwright has beyond KUDO's map (sprig v2.22): sprig v3's additions, which follow
 * sprig v3 (the differential checks them against a sprig v3 oracle). A package using one
 * does not render in KUDO.
 */
export const kudoExtensions: readonly string[] = [
  ...['add1f', 'addf', 'subf', 'mulf', 'divf', 'maxf', 'minf', 'seq', 'randInt', 'randBytes'],
  ...['all', 'any', 'chunk', 'dig', 'get', 'fromJson', 'toRawJson', 'sha512sum'],
  ...['duration', 'durationRound', 'regexQuoteMeta'],
  ...['osBase', 'osClean', 'osDir', 'osExt', 'osIsAbs'],
  ...['mustAppend', 'mustPush', 'mustPrepend', 'mustFirst', 'mustRest', 'mustLast'],
  ...['mustInitial', 'mustReverse', 'mustUniq', 'mustWithout', 'mustHas', 'mustSlice'],
  ...['mustChunk', 'mustCompact', 'mustDeepCopy', 'mustMerge', 'mustMergeOverwrite'],
  ...['mustFromJson', 'mustToJson', 'mustToPrettyJson', 'mustToRawJson'],
  ...['mustDateModify', 'must_date_modify', 'mustToDate'],
  ...['mustRegexFind', 'mustRegexFindAll', 'mustRegexMatch', 'mustRegexReplaceAll'],
  ...['mustRegexReplaceAllLiteral', 'mustRegexSplit'],
];

function build(): Map<string, FuncDef> {
  const m = new Map<string, FuncDef>();
  for (const mod of modules) for (const [k, v] of mod) m.set(k, v);
  for (const k of kudoRemoved) m.delete(k);
  return m;
}

export const kudoFuncs: ReadonlyMap<string, FuncDef> = build();

export function kudoFuncNames(): string[] {
  return [...kudoFuncs.keys()].sort();
}
