/** Runs `fn(0) … fn(count - 1)` with at most `concurrency` calls in flight. */
export async function pool(
  count: number,
  concurrency: number,
  fn: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}
