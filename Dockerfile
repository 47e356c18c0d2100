# Planwright: type-checked by tsc and bundled by esbuild (scripts/build.mjs), run as a non-root user on a slim Node image
# (checked without a daemon by test/unit/dockerfile.test.ts).
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# dist/ is a bundle that holds every package it runs (scripts/build.mjs): no node_modules here
# (test/integration/cli/bundle.test.ts runs it from a folder with none).
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY manifests ./manifests
USER 65532:65532
EXPOSE 9443
# Node flags chosen for a small, steady footprint (figures: bench/README.md, "Garbage, live
# set and node flags"): a 2 MiB young generation and a 30 % old-generation growth factor keep
# the heap as small as --optimize-for-size did at ~15 % less CPU, --no-memory-reducer skips
# the full GC after each burst. Source maps are enabled by dist/main.js.
ENTRYPOINT ["node", "--max-semi-space-size=2", "--heap-growing-percent=30", "--no-memory-reducer", "dist/main.js", "start"]
