/**
 * Parsers of `planwright start`'s flag values, each refusing a malformed value with a message
 * that names the flag and shows a good one: durations, whole numbers, ports, shard counts,
 * target servers, ServiceAccount names and repeatable grants.
 */
import { parseGoDuration, ParseDurationError } from '../gotemplate/index.ts';
import { TargetServerFlagError, TargetServerPolicy } from '../kube/index.ts';
import { TenancyFlagError, parseNamespace } from '../kudo/tasks/index.ts';
import { CliError } from './errors.ts';

/** A Go duration (`15s`, `500ms`, `1m30s`) above zero, in whole ms. */
export function durationMs(flag: string, value: string): number {
  const example = `e.g. ${flag} 15s (units: ms, s, m, h)`;
  let ns: bigint;
  try {
    ns = parseGoDuration(value);
  } catch (err) {
    if (!(err instanceof ParseDurationError)) throw err;
    throw new CliError(`${flag} ${JSON.stringify(value)}: not a duration; ${example}`);
  }
  const ms = Number(ns / 1_000_000n);
  if (ms < 1) {
    throw new CliError(
      `${flag} ${JSON.stringify(value)}: needs a duration of at least 1ms; ${example}`,
    );
  }
  return ms;
}

export function wholeNumber(flag: string, value: string, min: number, example: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || !Number.isSafeInteger(n)) {
    throw new CliError(
      `${flag} ${JSON.stringify(value)}: needs a whole number of at least ${min}, e.g. ${flag} ${example}`,
    );
  }
  return n;
}

/** `a,b` of --watch-namespaces: namespace names, at least one. */
export function namespaceList(value: string): readonly string[] {
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n))) {
    throw new CliError(
      `--watch-namespaces ${JSON.stringify(value)}: needs namespace names separated by commas, e.g. --watch-namespaces team-a,team-b`,
    );
  }
  return names;
}

export function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new CliError('--webhook-port needs a port number 0-65535, e.g. --webhook-port 9443');
  }
  return n;
}

/** Shards are labels `0` … `n-1` read by label selectors: a few hundred at most. */
export const MAX_SHARDS = 256;

export function shardCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_SHARDS) {
    throw new CliError(
      `--shards ${JSON.stringify(value)}: needs a whole number from 1 to ${MAX_SHARDS}, e.g. --shards 12 (a multiple of the replica counts you run keeps them even)`,
    );
  }
  return n;
}

export function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) {
    throw new CliError('--step-timeout needs a whole number of seconds, e.g. --step-timeout 600');
  }
  return n;
}

/** An --allow-target-server value (checked as the policy reads it), collected in order. */
export function targetServer(
  value: string,
  previous: readonly string[] | undefined,
): readonly string[] {
  try {
    new TargetServerPolicy([value]);
  } catch (err) {
    if (err instanceof TargetServerFlagError) throw new CliError(err.message);
    throw err;
  }
  return [...(previous ?? []), value];
}

/** A ServiceAccount name (a DNS label here: what `FROM=NAME` of the allow flag takes too). */
export function parseServiceAccount(flag: string, value: string): string {
  try {
    const name = parseNamespace(flag, value);
    if (name !== '*') return name;
  } catch (err) {
    if (!(err instanceof TenancyFlagError)) throw err;
  }
  throw new CliError(
    `${flag} ${JSON.stringify(value)}: needs a ServiceAccount name, e.g. ${flag} planwright-deployer`,
  );
}

/** A repeatable flag's parser: each value parsed by `parse`, collected in order. */
export function repeated<T>(flag: string, parse: (flag: string, value: string) => T) {
  return (value: string, previous: readonly T[] | undefined): readonly T[] => {
    try {
      return [...(previous ?? []), parse(flag, value)];
    } catch (err) {
      if (err instanceof TenancyFlagError) throw new CliError(err.message);
      throw err;
    }
  };
}
