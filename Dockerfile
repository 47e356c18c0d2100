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
# --max-semi-space-size=2 (MiB): V8's young generation grows to 3 x 16 MiB under a burst of
# work by default; capped, the manager peaks ~45 MiB lower at 1,000 Instances for the same CPU
# (bench/manager-process.ts). --optimize-for-size: V8 grows the old generation less eagerly
# (collects sooner); same run at 1,000 Instances the manager peaks at 156 instead of 180 MiB
# for 11% more CPU during the burst, and 10,000 Instances still complete (bench/vs-kudo.ts).
# --memory-reducer-single-gc: once a burst is over, V8's memory reducer runs one full GC
# (~0.1-0.2 s CPU at 1,000 Instances) instead of up to three; the second one returned 0.3 MB
# for ~0.1 s more CPU (bench/vs-kudo.ts BENCH_NODE_FLAGS="... --trace-gc" BENCH_LOG_FILE=...).
# No --enable-source-maps: dist/main.js enables source maps for
# Planwright's own modules after loading @kubernetes/client-node, whose maps would cost ~12 MiB.
ENTRYPOINT ["node", "--max-semi-space-size=2", "--optimize-for-size", "--memory-reducer-single-gc", "dist/main.js", "start"]
