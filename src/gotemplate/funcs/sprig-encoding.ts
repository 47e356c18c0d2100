// sprig's encoding, hashing, path and URL functions.

import { createHash, randomUUID } from 'node:crypto';
import { INTERFACE } from '../values.ts';
import { GoMap } from '../values.ts';
import type { FuncDef, GoValue } from '../values.ts';
import { fn, strval } from './convert.ts';

const S = 'string';

const B64 = /^[A-Za-z0-9+/]$/;
const isNewline = (c: number | undefined): boolean => c === 0x0a || c === 0x0d;

/**
 * Where Go's base64.StdEncoding rejects the input (its CorruptInputError offset, in bytes),
 * following decodeQuantum: newlines are skipped, a quantum cut short by the end of the input
 * is an error at its start, padding must be complete and last. Undefined when valid.
 */
function base64ErrorOffset(s: string): number | undefined {
  const src = Buffer.from(s, 'utf8');
  let si = 0;
  while (si < src.length) {
    for (let j = 0; j < 4; j++) {
      if (si === src.length) return j === 0 ? undefined : si - j;
      const c = src[si++]!;
      if (B64.test(String.fromCharCode(c))) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d || j < 2) return si - 1;
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return src.length;
        if (src[si] !== 0x3d) return si - 1;
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? si : undefined;
    }
  }
  return undefined;
}

/** Go's base64.StdEncoding.DecodeString: the bytes, or the text of its error. */
export function decodeStdBase64(s: string): Buffer | { error: string } {
  const at = base64ErrorOffset(s);
  if (at !== undefined) return { error: `illegal base64 data at input byte ${at}` };
  return Buffer.from(s, 'base64');
}

/** sprig's b64dec returns the decoding error as its result. */
function b64dec(s: string): string {
  const decoded = decodeStdBase64(s);
  return Buffer.isBuffer(decoded) ? decoded.toString('utf8') : decoded.error;
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function b32enc(s: string): string {
  const b = Buffer.from(s, 'utf8');
  let bits = 0;
  let val = 0;
  let out = '';
  for (const byte of b) {
    val = (val << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(val >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(val << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

function b32dec(s: string): string {
  const body = s.replace(/=+$/, '');
  const bad = body.search(/[^A-Z2-7]/);
  if (bad >= 0 || s.length % 8 !== 0)
    // A quantum the input cuts short is an error at its start.
    return `illegal base32 data at input byte ${bad >= 0 ? bad : s.length - (s.length % 8)}`;
  let bits = 0;
  let val = 0;
  const out: number[] = [];
  for (const c of body) {
    val = (val << 5) | B32.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((val >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out).toString('utf8');
}

function adler32(s: string): string {
  let a = 1;
  let b = 0;
  for (const byte of Buffer.from(s, 'utf8')) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return String(((b << 16) | a) >>> 0);
}

/** path.Clean. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
    } else out.push(part);
  }
  const s = (rooted ? '/' : '') + out.join('/');
  return s === '' ? '.' : s;
}

function basePath(p: string): string {
  if (p === '') return '.';
  p = p.replace(/\/+$/, '');
  if (p === '') return '/';
  return p.slice(p.lastIndexOf('/') + 1);
}

function dirPath(p: string): string {
  const i = p.lastIndexOf('/');
  return cleanPath(p.slice(0, i + 1));
}

function extPath(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

function urlParse(s: string): GoValue {
  const m =
    /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/(?:([^@/?#]*)@)?([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(
      s,
    );
  const g = (i: number): string => m?.[i] ?? '';
  const host = g(3);
  const hostname = host.startsWith('[')
    ? host.slice(1, host.indexOf(']'))
    : host.replace(/:\d*$/, '');
  return new GoMap(
    INTERFACE,
    new Map<string, GoValue>([
      ['scheme', g(1)],
      ['host', host],
      ['hostname', hostname],
      ['path', decodeURIComponent(g(4))],
      ['query', g(5)],
      ['opaque', ''],
      ['fragment', g(6)],
      ['userinfo', g(2)],
    ]),
  );
}

function urlJoin(m: GoMap): string {
  const get = (k: string): string => {
    const v = m.entries.get(k);
    return v === undefined || v === null ? '' : strval(v);
  };
  let out = '';
  if (get('scheme')) out += get('scheme') + ':';
  if (get('host') || get('userinfo')) {
    out += '//';
    if (get('userinfo')) out += get('userinfo') + '@';
    out += get('host');
  }
  let path = get('path');
  if (path && !path.startsWith('/') && get('host')) path = '/' + path;
  out += encodeURI(path);
  if (get('query')) out += '?' + get('query');
  if (get('fragment')) out += '#' + get('fragment');
  return out;
}

const hash = (alg: string) => (a: [string]) => createHash(alg).update(a[0], 'utf8').digest('hex');

export const sprigEncoding: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['b64enc', fn([S], (a) => Buffer.from(a[0], 'utf8').toString('base64'))],
  ['b64dec', fn([S], (a) => b64dec(a[0]))],
  ['b32enc', fn([S], (a) => b32enc(a[0]))],
  ['b32dec', fn([S], (a) => b32dec(a[0]))],
  ['sha1sum', fn([S], hash('sha1'))],
  ['sha256sum', fn([S], hash('sha256'))],
  ['sha512sum', fn([S], hash('sha512'))],
  ['adler32sum', fn([S], (a) => adler32(a[0]))],
  ['uuidv4', fn([], () => randomUUID())],
  ['osBase', fn([S], (a) => basePath(a[0]))],
  ['osClean', fn([S], (a) => cleanPath(a[0]))],
  ['osDir', fn([S], (a) => dirPath(a[0]))],
  ['osExt', fn([S], (a) => extPath(a[0]))],
  ['osIsAbs', fn([S], (a) => a[0].startsWith('/'))],
  ['urlParse', fn([S], (a) => urlParse(a[0]))],
  ['urlJoin', fn(['map[string]interface {}'], (a) => urlJoin(a[0]))],
]);
