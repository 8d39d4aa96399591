# PlanHub server image. Build: docker build -t planhub . — run: see docker-compose.yml and docs/operations.md.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: the whole toolchain (pnpm, TypeScript, esbuild), thrown away afterwards --------------------------------
FROM ${NODE_IMAGE} AS build
RUN npm install --global pnpm@10.34.9
WORKDIR /src
# Manifests first: the dependency layer is rebuilt only when they change, not on every source edit.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
# pnpm-workspace.yaml's patchedDependencies: applied at install, so they must be there first.
COPY patches/ patches/
COPY shared/package.json shared/
COPY server/package.json server/
COPY client-sdk/package.json client-sdk/
COPY test/package.json test/
RUN pnpm install --frozen-lockfile --filter "@planhub/server..."
COPY tsconfig.base.json ./
COPY shared/ shared/
COPY server/ server/
# dist/main.js (with @planhub/shared bundled in), the Lua scripts and the prebuilt dashboard.
RUN pnpm --filter @planhub/server build
# A standalone copy of the server with production dependencies only: no tsx, no esbuild, no TypeScript.
RUN pnpm --filter @planhub/server deploy --prod --legacy /out

# --- runtime: node, the bundle and its production dependencies --------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
# Owned by root and read-only for the process: a compromised node cannot rewrite its own code.
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/node_modules ./node_modules
COPY --from=build /out/dist ./dist
# pnpm deploy --legacy leaves a link to the workspace's own package, node_modules/.pnpm/node_modules/@planhub/server
# -> /src/server: valid in the build stage, dangling here. Nothing loads it, and it breaks `docker cp`. So it goes
# here, where it dangles; -xtype l matches only links whose target is missing.
RUN find node_modules -xtype l -delete
# The file store's directory (PLANHUB_STORE=file PLANHUB_STORAGE_PATH=/data), owned by the process's user so a
# named volume mounted here is writable. Unused with the memory or Redis store. lmdb's native binary ships in its
# npm package (@lmdb/lmdb-linux-*), for glibc images such as this one.
RUN mkdir /data && chown node:node /data
# The official image's unprivileged user (uid 1000).
USER node
EXPOSE 4000
# /readyz: 200 when this node's store answers and it is not shutting down (slim images have no curl).
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is process 1 and receives docker stop's SIGTERM itself, so the graceful shutdown runs.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
