// The plain-YAML fast path against the full parser: whenever the fast path answers, the
// full parser must accept the same text and produce the same documents (values, types, key
// order, null prototypes); and the fast path must really answer for ordinary output.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  MAX_OBJECT_DEPTH,
  TemplateCache,
  executeJob,
  parseDocumentsFully,
} from '../../../../src/kudo/render/index.ts';
import { parsePlainDocuments } from '../../../../src/kudo/render/plain-yaml.ts';
import { KUDO_PACKAGES_DIR } from '../../../support/shared.ts';
import { job, packageDefaults } from './jobs.ts';

/** Everything that must match, prototypes included, as one string. */
function shape(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return `${typeof value}:${Object.is(value, -0) ? '-0' : JSON.stringify(value)}`;
  }
  if (Array.isArray(value)) return `[${value.map(shape).join(',')}]`;
  const proto = Object.getPrototypeOf(value) === null ? 'null' : 'OBJECT';
  const entries = Object.keys(value).map(
    (k) => `${JSON.stringify(k)}=${shape((value as Record<string, unknown>)[k])}`,
  );
  return `{${proto}|${entries.join(',')}}`;
}

/** What the full parser makes of `text`: documents or the error message. */
function full(text: string): string {
  try {
    return shape(parseDocumentsFully('t', text));
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

/** The fast path's answer (`undefined` = gave up); asserts it agrees with the full parser. */
function checked(text: string): string | undefined {
  const fast = parsePlainDocuments(text, MAX_OBJECT_DEPTH);
  if (fast === undefined) return undefined;
  const got = shape(fast);
  expect({ text, got }).toEqual({ text, got: full(text) });
  return got;
}

const SCALARS = [
  'yes',
  'Yes',
  'YES',
  'no',
  'No',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
  'y',
  'Y',
  'n',
  'N',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'null',
  'Null',
  'NULL',
  '~',
  '',
  'yEs',
  '0',
  '00',
  '0777',
  '0o17',
  '0x1F',
  '0b101',
  '1e3',
  '1.5',
  '.5',
  '-0',
  '+1',
  '-12',
  '12',
  '1_000',
  '123456789012345',
  '1234567890123456',
  '12345678901234567890',
  '190:20:30',
  '.inf',
  '-.inf',
  '.nan',
  '.NaN',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '2001-12-14 21:59:43.10 -5',
  'hello',
  'hello world',
  'a  b',
  'a:b',
  'http://x.y/z?q=1',
  'a: b',
  'a:',
  'a #c',
  'a#c',
  'nginx:1.19',
  'x=y',
  'f(x)',
  'a,b',
  'a-b',
  'a_b',
  'v1.2.3',
  'key.with/slash',
  '-a',
  '- a',
  '"quoted"',
  '"with \\" escape"',
  '"a\\nb"',
  '"it\'s"',
  "'single'",
  "'it''s'",
  "'a\"b'",
  '"yes"',
  "'0777'",
  '"#x"',
  '"a: b"',
  '""',
  "''",
  '[]',
  '{}',
  '[a]',
  '{a: 1}',
  '[ ]',
  '&a x',
  '*a',
  '!!str 1',
  '!x y',
  '|',
  '>',
  '|-',
  '? x',
  '@x',
  '`x`',
  '%x',
  '<<',
  '=',
  '"unterminated',
  "'unterminated",
  '"a" trailing',
  '"a"  ',
  'a   ',
  '__proto__',
  'constructor',
];
const KEYS = [
  'a',
  'yes',
  'y',
  'on',
  'null',
  'true',
  '1',
  '0777',
  '"1"',
  '"yes"',
  "'a'",
  '"a b"',
  '"__proto__"',
  '__proto__',
  'constructor',
  'toString',
  'app.kubernetes.io/name',
  'a-b',
  '-a',
  '"a:b"',
  '<<',
  '? a',
  'a b',
  '"x"y',
  "'x'y",
  'a'.repeat(1001),
  'a'.repeat(999),
  '2',
  '"2"',
  '~',
  '&x a',
];

describe('plain YAML fast path', () => {
  it('reads every scalar and key the way the full parser does, or gives up', () => {
    let fast = 0;
    for (const v of SCALARS) {
      for (const text of [`k: ${v}\n`, `k:\n- ${v}\n`, `k:\n  - ${v}\n  - x\n`]) {
        if (checked(text) !== undefined) fast++;
      }
    }
    for (const k of KEYS) {
      for (const text of [`${k}: v\n`, `a: 1\n${k}: 2\n`, `m:\n  ${k}: v\n`, `l:\n- ${k}: v\n`]) {
        if (checked(text) !== undefined) fast++;
      }
    }
    expect(fast).toBeGreaterThan(120);
    // Spot checks that the fast path answers what it should.
    expect(checked('k: hello world\n')).toBe('[{null|"k"=string:"hello world"}]');
    expect(checked('k: 12\n')).toBe('[{null|"k"=number:12}]');
    expect(checked("k: '0777'\n")).toBe('[{null|"k"=string:"0777"}]');
    expect(checked('k: []\nm: {}\n')).toBe('[{null|"k"=[],"m"={null|}}]');
    expect(checked('k: yes\n')).toBeUndefined();
    expect(checked('k: 0777\n')).toBeUndefined();
  });

  it('reads structures the way the full parser does, or gives up', () => {
    const cases = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    x: "1"\ndata:\n  k: v\n',
      'a:\n- x\n- y\nb: 1\n',
      'a:\n  - x\n  - y\nb: 1\n',
      'a:\n- name: x\n  image: img\n  ports:\n  - 80\n  - containerPort: 81\n- name: z\nb: c\n',
      'a:\n  -   name: x\n      image: img\n',
      'a:\n-\n  b: 1\n-\n- x\n',
      'a:\n- - x\n',
      'a:\nb:\n',
      'a:\n  b:\n    c:\n  d: 1\n',
      'a:\n  b: 1\n c: 2\n',
      'a:\n  b: 1\n   c: 2\n',
      'a: 1\n  b: 2\n',
      'a: some\n  continued\n',
      '- a\n- b\n',
      'just a scalar\n',
      '---\na: 1\n---\nb: 2\n...\n',
      '---\na: 1\n---\n\n---\n# only a comment\nb: "--- not a marker"\n',
      '--- a: 1\n',
      '--- \na: 1\n----\n',
      'a: 1\n---\n- x\n',
      'a: 1\na: 2\n',
      'a: 1\n"a": 2\n',
      'a: 1 # comment\n',
      '# top\na: 1\n   # indented comment\nb: 2\n',
      'a: 1\r\nb: 2\r\n',
      'a:\tb\n',
      'a: héllo\n',
      '\ufeffa: 1\n',
      'a:\n  b: &x 1\n  c: *x\n',
      '<<: {a: 1}\nb: 2\n',
      'a: |\n  text\n',
      'a: "multi\n  line"\n',
      '  a: 1\n',
      'a:1\n',
      'a : 1\n',
      '',
      '\n\n',
      '---\n',
      'a: [x, y]\n',
      'a:\n- x\nb:\n  - y\n-  z\n',
      'a:\n  - x\n  b: 1\n',
      'a:\n  b: 1\n  - x\n',
      '%YAML 1.1\n---\na: 1\n',
      'a: "x"\nb: \'y\'\nc: 0\nd: -3\ne: 123456789012345\n',
    ];
    let fast = 0;
    for (const text of cases) if (checked(text) !== undefined) fast++;
    expect(fast).toBeGreaterThan(9);
  });

  it('stops at the depth limit where the full parser does', () => {
    for (const levels of [MAX_OBJECT_DEPTH - 2, MAX_OBJECT_DEPTH - 1, MAX_OBJECT_DEPTH]) {
      let text = '';
      for (let i = 0; i < levels; i++) text += `${' '.repeat(i)}k${i}:\n`;
      checked(`${text}${' '.repeat(levels)}x: 1\n`);
      checked(`${text}${' '.repeat(levels)}x: []\n`);
      checked(`${text}${' '.repeat(levels)}x: {}\n`);
      let seq = '';
      for (let i = 0; i < levels; i++) seq += `${' '.repeat(2 * i)}- k${i}:\n`;
      checked(`r:\n${seq}`);
    }
    const ok = 'a:\n  b:\n    c: []\n';
    expect(parsePlainDocuments(ok, 3)).toBeUndefined();
    expect(parsePlainDocuments(ok, 4)).toBeDefined();
  });

  it('agrees with the full parser on random texts', () => {
    // Deterministic pseudo-random texts from YAML-ish pieces: the fast path must either
    // give up or agree.
    let seed = 18;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const keys = ['a', 'b', 'name', '"q"', 'on', 'k1', 'a.b/c'];
    const values = [
      '',
      '',
      '',
      'x',
      '1',
      '"s"',
      "'t'",
      '[]',
      '{}',
      'yes',
      '0777',
      'a b',
      'a: b',
      '- x',
      '~',
    ];
    let fast = 0;
    for (let i = 0; i < 4000; i++) {
      let text = '';
      const count = 1 + next(10);
      for (let j = 0; j < count; j++) {
        const roll = next(20);
        if (roll === 0) {
          text += '---\n';
          continue;
        }
        if (roll === 1) {
          text += '\n';
          continue;
        }
        text += ' '.repeat(2 * next(3) + (next(10) === 0 ? 1 : 0));
        if (next(3) === 0) text += next(8) === 0 ? '-\n' : '- ';
        const value = values[next(values.length)]!;
        text +=
          next(4) === 0
            ? `${value}\n`
            : `${keys[next(keys.length)]!}:${value === '' ? '' : ' '}${value}\n`;
      }
      if (checked(text) !== undefined) fast++;
    }
    expect(fast).toBeGreaterThan(200);
  });

  it('reads every template of the KUDO packages as the full parser does', () => {
    const cache = new TemplateCache();
    let rendered = 0;
    let fast = 0;
    for (const name of readdirSync(KUDO_PACKAGES_DIR)) {
      const dir = join(KUDO_PACKAGES_DIR, name);
      const parameters = packageDefaults(dir);
      for (const file of readdirSync(join(dir, 'templates'))) {
        const text = readFileSync(join(dir, 'templates', file), 'utf8');
        let output: string;
        try {
          output = executeJob(cache, job(`${name}/${file}`, text, parameters));
        } catch {
          continue; // needs a parameter without a default: not renderable here
        }
        rendered++;
        if (checked(output) !== undefined) fast++;
      }
    }
    expect(rendered).toBeGreaterThan(12);
    expect(fast).toBeGreaterThan(3);
  });
});
