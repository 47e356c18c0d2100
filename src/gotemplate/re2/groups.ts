// The ASCII-only Perl (\d \s \w) and POSIX ([:alpha:]) classes of regexp/syntax; unlike
// JS, \s has no \v and none of these reach beyond ASCII.

export interface CharGroup {
  negated: boolean;
  ranges: readonly number[];
}

const digit = [0x30, 0x39];
const space = [0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20];
const word = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];

/** A class and its negation, e.g. \d and \D, keyed by their spellings. */
function both(
  name: string,
  ranges: number[],
  wrap: (n: string, neg: boolean) => string,
): [string, CharGroup][] {
  return [
    [wrap(name, false), { negated: false, ranges }],
    [wrap(name, true), { negated: true, ranges }],
  ];
}

const perlWrap = (n: string, neg: boolean): string => `\\${neg ? n.toUpperCase() : n}`;

export const perlGroups: ReadonlyMap<string, CharGroup> = new Map([
  ...both('d', digit, perlWrap),
  ...both('s', space, perlWrap),
  ...both('w', word, perlWrap),
]);

const posixWrap = (n: string, neg: boolean): string => `[:${neg ? '^' : ''}${n}:]`;

export const posixGroups: ReadonlyMap<string, CharGroup> = new Map([
  ...both('alnum', [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a], posixWrap),
  ...both('alpha', [0x41, 0x5a, 0x61, 0x7a], posixWrap),
  ...both('ascii', [0x00, 0x7f], posixWrap),
  ...both('blank', [0x09, 0x09, 0x20, 0x20], posixWrap),
  ...both('cntrl', [0x00, 0x1f, 0x7f, 0x7f], posixWrap),
  ...both('digit', digit, posixWrap),
  ...both('graph', [0x21, 0x7e], posixWrap),
  ...both('lower', [0x61, 0x7a], posixWrap),
  ...both('print', [0x20, 0x7e], posixWrap),
  ...both('punct', [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e], posixWrap),
  ...both('space', [0x09, 0x0d, 0x20, 0x20], posixWrap),
  ...both('upper', [0x41, 0x5a], posixWrap),
  ...both('word', word, posixWrap),
  ...both('xdigit', [0x30, 0x39, 0x41, 0x46, 0x61, 0x66], posixWrap),
]);
