import { describe, expect, it } from '@jest/globals';
import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { auditLogArgs, AuditTally, countsSince, total } from '../../../bench/support/audit.ts';
import { formatTable, ratio } from '../../../bench/support/table.ts';

const event = (
  id: string,
  user: string,
  verb: string,
  ref?: { resource: string; subresource?: string },
  uri = '/x',
): string =>
  JSON.stringify({
    auditID: id,
    stage: 'ResponseComplete',
    verb,
    user: { username: user },
    requestURI: uri,
    ...(ref ? { objectRef: ref } : {}),
  }) + '\n';

describe('bench audit tally', () => {
  it('writes a Metadata policy for the given users only and the flags that use it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pw-audit-'));
    const { args, logPath } = await auditLogArgs(dir, ['kudo-manager', 'admin']);
    expect(args).toContain(`--audit-log-path=${logPath}`);
    const policyFlag = args.find((a) => a.startsWith('--audit-policy-file='));
    const policy = parse(await readFile(policyFlag?.split('=')[1] ?? '', 'utf8')) as {
      rules: Array<{ level: string; users?: string[] }>;
    };
    expect(policy.rules[0]).toEqual({ level: 'Metadata', users: ['kudo-manager', 'admin'] });
    expect(policy.rules.at(-1)).toEqual({ level: 'None' });
  });

  it('counts each request once per user, reading only what was appended', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pw-audit-'));
    const log = join(dir, 'audit.log');
    const tally = new AuditTally(log);
    await tally.refresh(); // no file yet: nothing counted, no error
    expect(tally.snapshot('m').size).toBe(0);
    await writeFile(
      log,
      event('1', 'm', 'create', { resource: 'configmaps' }) +
        event('2', 'm', 'update', { resource: 'instances', subresource: 'status' }) +
        // A watch logs ResponseStarted and ResponseComplete: one request.
        event('3', 'm', 'watch', { resource: 'configmaps' }) +
        event('3', 'm', 'watch', { resource: 'configmaps' }) +
        event('4', 'bench', 'list', { resource: 'instances' }) +
        event('5', 'm', 'get', undefined, '/apis/apps/v1?timeout=32s'),
    );
    await tally.refresh();
    const before = tally.snapshot('m');
    expect([...before]).toEqual([
      ['create configmaps', 1],
      ['update instances/status', 1],
      ['watch configmaps', 1],
      ['get (discovery)', 1],
    ]);
    // A line cut in half by a refresh is counted once it is complete.
    const next = event('6', 'm', 'patch', { resource: 'configmaps' });
    await appendFile(log, next.slice(0, 20));
    await tally.refresh();
    expect(tally.snapshot('m').get('patch configmaps')).toBeUndefined();
    await appendFile(log, next.slice(20) + event('7', 'm', 'get', { resource: 'deployments' }));
    await tally.refresh();
    const since = countsSince(tally.snapshot('m'), before);
    expect(since).toEqual([
      ['get deployments', 1],
      ['patch configmaps', 1],
    ]);
    expect(total(since)).toBe(2);
    expect(total(since, true)).toBe(1);
    expect(tally.snapshot('bench').get('list instances')).toBe(1);
  });
});

describe('bench table', () => {
  it('prints ratios and an aligned Markdown table', () => {
    expect(ratio(191, 17.7)).toBe('11×');
    expect(ratio(9.03, 8.01)).toBe('1.1×');
    expect(ratio(73, 216)).toBe('0.34×');
    expect(ratio(0, 0)).toBe('–');
    expect(ratio(3, 0)).toBe('∞');
    expect(formatTable(['a', 'bb'], [['ccc', 'd']]).split('\n')).toEqual([
      '| a   | bb |',
      '|-----|----|',
      '| ccc | d  |',
    ]);
  });
});
