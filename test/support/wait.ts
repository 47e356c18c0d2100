import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `condition` until it returns a truthy value, or fails after `timeoutMs` naming what was
 * awaited and the last error seen. Use for eventual consistency, never as a timing assertion.
 */
export async function waitFor<T>(
  what: string,
  condition: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  // The default is a hang guard: long enough for a machine whose CPUs are busy with other work.
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: last error: ${lastError.message}` : '';
      throw new Error(`timed out waiting for ${what}${detail}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}
