// The repository stands on its own: every Markdown file's relative links — and the paths of
// the repository its text names in backquotes (`src/kube/apply.ts`) — lead to something that
// exists, a link's #anchor to a heading of its page, and no page sends the reader outside the
// clone (`../shared`, which a user who cloned the repository does not have; only the pages on
// running the tests say that the tests need it there).
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repositoryRoot } from '../../src/localcluster/paths.ts';

const ROOT = repositoryRoot();
const SKIPPED = new Set(['node_modules', 'dist', '.git', 'coverage']);
/**
 * The pages that say what the tests take from beside the clone (test/support/shared.ts): the
 * only ones that may name ../shared, and never as a link.
 */
const NAMES_TEST_DATA = new Set(['README.md', 'docs/testing.md']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIPPED.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+)$/gm)) out.add(slug(m[1] ?? ''));
  return out;
}

/** Text outside fenced code blocks (examples there are shell sessions, not references). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** Problems of one file's links, each naming the file, the link and what is wrong. */
function problems(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const name = relative(ROOT, file);
  const out: string[] = [];
  const body = prose(text);
  for (const m of body.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path = '', anchor] = target.split('#');
    const resolved = path === '' ? file : resolve(dirname(file), path);
    if (!resolved.startsWith(ROOT)) {
      out.push(`${name}: link ${target} leaves the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      out.push(`${name}: link ${target}: ${relative(ROOT, resolved)} does not exist`);
      continue;
    }
    if (anchor && resolved.endsWith('.md')) {
      if (!anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
        out.push(`${name}: link ${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`);
      }
    }
  }
  // Paths of the repository named in backquotes: `src/…`, `docs/…`, `test/…/x.ts`, and
  // scripts by their name alone (`bench/vs-kudo`).
  const top = /^(src|docs|test|bench|manifests|examples|scripts|charts)\//;
  for (const m of body.matchAll(/`([^`\s]+)`/g)) {
    const path = (m[1] ?? '').replace(/[:,.]$/, '');
    if (!top.test(path) || /[*{}<>]|\.\.\.|…/.test(path)) continue;
    const found = existsSync(join(ROOT, path)) || existsSync(join(ROOT, `${path}.ts`));
    if (!found) out.push(`${name}: \`${path}\` does not exist`);
  }
  if (/\.\.\/shared\b/.test(text) && !NAMES_TEST_DATA.has(name)) {
    out.push(`${name}: refers to ../shared, outside the clone`);
  }
  return out;
}

describe('links of the Markdown files', () => {
  const files = markdownFiles(ROOT);

  it('finds the pages', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'docs/architecture.md', 'bench/README.md']),
    );
  });

  it('every relative link, anchor and named path resolves inside the repository', () => {
    expect(files.flatMap(problems)).toEqual([]);
  });

  it('slugs headings as GitHub does', () => {
    expect(slug('Pipe and KudoOperator tasks')).toBe('pipe-and-kudooperator-tasks');
    expect(slug('Against KUDO 0.19 (`vs-kudo.ts`)')).toBe('against-kudo-019-vs-kudots');
    expect(slug('Old packages on a current cluster')).toBe('old-packages-on-a-current-cluster');
  });
});
