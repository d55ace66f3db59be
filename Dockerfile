# syntax=docker/dockerfile:1
# The services' production images: one target per service, built from this one file
# (`docker compose build`, or `docker build --target http-gateway -t svc/http-gateway .`).
# An image holds its app's esbuild bundles, only the npm packages those import (no chDB: the core
# runs on a ClickHouse server), the health probe, and runs as the unprivileged `node` user.
# What goes in is assembled by deploy/assemble-app.mjs, which the compose topology test
# (apps/self-hosting) runs too. docs/self-hosting.md has the rest.

# The Node.js release the repository is developed and tested on (package.json engines: >= 20.19).
ARG NODE_IMAGE=node:20.20-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN npm install -g pnpm@10.34.8
WORKDIR /src
# The lockfile alone decides what is downloaded: this layer stays cached until it changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN pnpm install --offline --frozen-lockfile
RUN for app in identity observability-core http-gateway recall copilot console; do \
      node deploy/assemble-app.mjs "$app" "/out/$app" || exit 1; \
    done

# What every service image shares. The code stays owned by root: the `node` user can read it, not
# change it. /data is the one writable place (a named volume in docker-compose.yml).
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    SVC_DATA_DIR=/data \
    PATH=/app/deploy/bin:$PATH
WORKDIR /app
RUN mkdir -p /data && chown node:node /data
USER node

FROM runtime AS identity
COPY --from=build /out/identity /app
EXPOSE 8081
HEALTHCHECK --interval=5s --timeout=4s --start-period=60s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs", "http://127.0.0.1:8081/healthz"]
CMD ["node", "--max-old-space-size=128", "apps/identity/dist/main.js"]

FROM runtime AS observability-core
COPY --from=build /out/observability-core /app
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=4s --start-period=60s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs", "http://127.0.0.1:8080/healthz"]
CMD ["node", "apps/observability-core/dist/main.js"]

FROM runtime AS recall
COPY --from=build /out/recall /app
EXPOSE 8087
HEALTHCHECK --interval=5s --timeout=4s --start-period=60s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs", "http://127.0.0.1:8087/healthz"]
CMD ["node", "--max-old-space-size=256", "apps/recall/dist/main.js"]

FROM runtime AS copilot
COPY --from=build /out/copilot /app
EXPOSE 8093
HEALTHCHECK --interval=5s --timeout=4s --start-period=60s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs", "http://127.0.0.1:8093/healthz"]
CMD ["node", "--max-old-space-size=192", "apps/copilot/dist/main.js"]

# In a container the gateway listens on every interface: loopback would be unreachable from the
# host's published port (its Host check against DNS rebinding applies only on loopback).
FROM runtime AS http-gateway
COPY --from=build /out/http-gateway /app
ENV SVC_MCP_HTTP_HOST=0.0.0.0
EXPOSE 8092 9464
HEALTHCHECK --interval=5s --timeout=4s --start-period=60s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs", "http://127.0.0.1:8092/healthz"]
CMD ["node", "--max-old-space-size=128", "--single-threaded-gc", "apps/http-gateway/dist/main.js"]

# The web console, published beside the gateway. Like the gateway it listens on every interface in
# a container. Its image also holds apps/console/static/ and @picocss/pico (deploy/assemble-app.mjs).
FROM runtime AS console
COPY --from=build /out/console /app
ENV SVC_CONSOLE_HOST=0.0.0.0
EXPOSE 8094
HEALTHCHECK --interval=5s --timeout=4s --start-period=60s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs", "http://127.0.0.1:8094/healthz"]
CMD ["node", "--max-old-space-size=128", "apps/console/dist/main.js"]
