// Reading the expression: Go walks UTF-8 bytes, this walks UTF-16 code units; a lone
// surrogate is the only text a JS string can hold that Go would call invalid UTF-8.

import { Re2Error } from './errors.ts';

/** The code point at i and the index after it; at the end, U+FFFD and i (as Go's decoder). */
export function nextRune(s: string, i: number): [number, number] {
  if (i >= s.length) return [0xfffd, i];
  const c = s.codePointAt(i)!;
  if (c >= 0xd800 && c <= 0xdfff) throw new Re2Error('invalid UTF-8', s.slice(i));
  return [c, i + (c > 0xffff ? 2 : 1)];
}

/** Go's checkUTF8: the first lone surrogate makes the rest of s the error. */
export function checkUTF8(s: string): void {
  for (let i = 0; i < s.length;) i = nextRune(s, i)[1];
}

export function isalnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

export function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}
