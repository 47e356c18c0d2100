// sprig's deterministic crypto helpers (derivePassword, encryptAES/decryptAES) and
// randBytes. Key and certificate generation (genCA, genPrivateKey, ...) and bcrypt/htpasswd
// are not implemented: a template using them fails to parse, as an undefined function would.

import { createCipheriv, createDecipheriv, createHmac, randomBytes, scryptSync } from 'node:crypto';
import type { FuncDef } from '../values.ts';
import { fn, goErr } from './convert.ts';
import { decodeStdBase64 } from './sprig-encoding.ts';

const S = 'string';

/** The Master Password algorithm's namespace, as sprig seeds it. */
const MASTER_PASSWORD_SEED = 'com.lyndir.masterpassword';

const PASSWORD_TEMPLATES: Record<string, readonly string[]> = {
  maximum: ['anoxxxxxxxxxxxxxxxxx', 'axxxxxxxxxxxxxxxxxno'],
  long: [
    'CvcvnoCvcvCvcv',
    'CvcvCvcvnoCvcv',
    'CvcvCvcvCvcvno',
    'CvccnoCvcvCvcv',
    'CvccCvcvnoCvcv',
    'CvccCvcvCvcvno',
    'CvcvnoCvccCvcv',
    'CvcvCvccnoCvcv',
    'CvcvCvccCvcvno',
    'CvcvnoCvcvCvcc',
    'CvcvCvcvnoCvcc',
    'CvcvCvcvCvccno',
    'CvccnoCvccCvcv',
    'CvccCvccnoCvcv',
    'CvccCvccCvcvno',
    'CvcvnoCvccCvcc',
    'CvcvCvccnoCvcc',
    'CvcvCvccCvccno',
    'CvccnoCvcvCvcc',
    'CvccCvcvnoCvcc',
    'CvccCvcvCvccno',
  ],
  medium: ['CvcnoCvc', 'CvcCvcno'],
  short: ['Cvcn'],
  basic: ['aaanaaan', 'aannaaan', 'aaannaaa'],
  pin: ['nnnn'],
};

const TEMPLATE_CHARACTERS: Record<string, string> = {
  V: 'AEIOU',
  C: 'BCDFGHJKLMNPQRSTVWXYZ',
  v: 'aeiou',
  c: 'bcdfghjklmnpqrstvwxyz',
  A: 'AEIOUBCDFGHJKLMNPQRSTVWXYZ',
  a: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz',
  n: '0123456789',
  o: "@&%?,=[]_:-+*$#!'^~;()/.",
  x: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()',
};

function uint32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** Lengths are Go byte lengths, so names outside ASCII derive what Go derives. */
function lengthPrefixed(s: string): Buffer {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([uint32be(bytes.length), bytes]);
}

function derivePassword(
  counter: number,
  passwordType: string,
  password: string,
  user: string,
  site: string,
): string {
  const templates = PASSWORD_TEMPLATES[passwordType];
  if (!templates) return `cannot find password template ${passwordType}`;
  const seed = Buffer.from(MASTER_PASSWORD_SEED, 'utf8');
  const salt = Buffer.concat([seed, lengthPrefixed(user)]);
  // N=32768 with r=8 needs 32 MiB, above node's default maxmem of 32 MiB minus a margin.
  const key = scryptSync(Buffer.from(password, 'utf8'), salt, 64, {
    N: 32768,
    r: 8,
    p: 2,
    maxmem: 64 * 1024 * 1024,
  });
  const digest = createHmac('sha256', key)
    .update(Buffer.concat([seed, lengthPrefixed(site), uint32be(counter)]))
    .digest();
  const template = templates[(digest[0] as number) % templates.length] as string;
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const chars = TEMPLATE_CHARACTERS[template[i] as string] as string;
    out += chars[(digest[i + 1] as number) % chars.length];
  }
  return out;
}

/** sprig zero-pads (or truncates) the password to an AES-256 key. */
function aesKey(password: string): Buffer {
  const key = Buffer.alloc(32);
  Buffer.from(password, 'utf8').copy(key);
  return key;
}

function encryptAES(password: string, plaintext: string): string {
  if (plaintext === '') return '';
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', aesKey(password), iv); // PKCS#7, as sprig pads
  return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final()]).toString('base64');
}

/**
 * Mirrors sprig's unchecked unpadding: it trusts the last byte, and the panics Go raises on
 * short or misaligned input surface as the same runtime errors.
 */
function decryptAES(password: string, crypt64: string): string {
  if (crypt64 === '') return '';
  const decoded = decodeStdBase64(crypt64);
  if (!Buffer.isBuffer(decoded)) goErr(decoded.error);
  if (decoded.length < 16)
    goErr(`runtime error: slice bounds out of range [:16] with capacity ${decoded.length}`);
  const body = decoded.subarray(16);
  if (body.length % 16 !== 0) goErr('crypto/cipher: input not full blocks');
  if (body.length === 0) goErr('runtime error: index out of range [-1]');
  const decipher = createDecipheriv('aes-256-cbc', aesKey(password), decoded.subarray(0, 16));
  decipher.setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(body), decipher.final()]);
  const end = plain.length - (plain[plain.length - 1] as number);
  if (end < 0) goErr(`runtime error: slice bounds out of range [:${end}]`);
  return plain.subarray(0, end).toString('utf8');
}

function randBytes(count: bigint): string {
  if (count < 0n) goErr('runtime error: makeslice: len out of range');
  return randomBytes(Number(count)).toString('base64');
}

export const sprigCrypto: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  [
    'derivePassword',
    fn(['uint32', S, S, S, S], (a) => derivePassword(Number(a[0].v), a[1], a[2], a[3], a[4])),
  ],
  ['encryptAES', fn([S, S], (a) => encryptAES(a[0], a[1]))],
  ['decryptAES', fn([S, S], (a) => decryptAES(a[0], a[1]))],
  ['randBytes', fn(['int'], (a) => randBytes(a[0].v))],
]);
