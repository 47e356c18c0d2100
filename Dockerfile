# Planwright: build with tsc, run as a non-root user on a slim Node image. Checked without a
# daemon by test/unit/dockerfile.test.ts; the e2e tests run the final stage's files (dist/,
# production dependencies only, see test/support/dockerfile.ts) as the in-cluster replicas.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY manifests ./manifests
USER 65532:65532
EXPOSE 9443
# --optimize-for-size: V8 grows the old generation less eagerly (collects sooner) and keeps the
# young generation at its minimum (1 MiB: --max-semi-space-size does nothing next to it); at
# 1,000 Instances the main process peaks at 158-165 MiB instead of 202-221 MiB without it
# (semi-space 2-16 MiB), bench/manager-process.ts. The price is CPU: with templates rendered
# on the main thread the small young generation means ~920 scavenges per 1,000 Instances and
# 10-12 ms of main-thread CPU per Instance at load 3-5, against ~225 scavenges and 7.3-7.7 ms
# with --max-semi-space-size=4 --heap-growing-percent=30 (peak 173-175 MiB), same run.
# Re-measured with the smaller live set (drift baselines only when drift is on):
# --max-semi-space-size=2 --heap-growing-percent=10 takes ~15 % off the main thread's CPU per
# Instance for 2-6 MiB more peak (158-161 MiB against 153-159): no room under 160 MiB.
# --no-memory-reducer: after a burst V8's memory reducer ran one full GC of the whole heap,
# ~0.1 s of CPU in the first idle minute (0.17-0.20 s/min instead of 0.05-0.06), and gave
# back ~10 MiB (153 instead of 161-163 MiB after that minute); without it the garbage waits
# for the next burst's collections. Later idle minutes are the same either way.
# No --enable-source-maps: dist/main.js enables source maps for
# Planwright's own modules after loading @kubernetes/client-node, whose maps would cost ~12 MiB.
ENTRYPOINT ["node", "--optimize-for-size", "--no-memory-reducer", "dist/main.js", "start"]
