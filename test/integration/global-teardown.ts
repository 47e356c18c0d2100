// Stops the shared control plane and proves it: every recorded pid must be gone afterwards,
// otherwise the run fails rather than leaving an orphan behind.
export default async function globalTeardown(): Promise<void> {
  const cluster = globalThis.__planwrightTestCluster;
  globalThis.__planwrightTestCluster = undefined;
  if (!cluster) return;
  const pids = Object.entries(cluster.pids);
  await cluster.stop();
  const survivors = pids.filter(([, pid]) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  if (survivors.length > 0) {
    throw new Error(
      `control-plane processes still running after stop: ${JSON.stringify(survivors)}`,
    );
  }
  process.stderr.write(
    `[control plane] stopped; ${pids.map(([n, p]) => `${n} (pid ${p})`).join(', ')} gone\n`,
  );
}
