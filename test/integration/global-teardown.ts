// Stops the shared control plane: processes by recorded pid, work folder removed.
export default async function globalTeardown(): Promise<void> {
  const cluster = globalThis.__planwrightTestCluster;
  globalThis.__planwrightTestCluster = undefined;
  await cluster?.stop();
}
