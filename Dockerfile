# syntax=docker/dockerfile:1
# One image for every role: ROLES=api | media | worker (or several, comma-separated) picks what a
# container runs. See README "Deploy" and deploy/ (compose, nginx, Kubernetes).

# Build stage: the toolchain of node:20-bookworm (g++, make, python3) compiles the C++ addon, the
# native npm modules and the TypeScript; none of it reaches the runtime stage.
FROM node:20-bookworm AS build
WORKDIR /app
# node-gyp takes Node's headers from the image (/usr/local/include/node) instead of downloading them.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json binding.gyp tsconfig.json tsconfig.build.json ./
# Fixes to dependencies, applied by the postinstall script (patches/README.md).
COPY patches ./patches
COPY native ./native
COPY src ./src
# npm workspaces built by the root build: the SDK, the browser call client (/call) and the console (/).
COPY packages ./packages
COPY console ./console
# npm ci runs the package's install (node-gyp rebuild) and prepare (tsc) scripts.
RUN --mount=type=cache,target=/root/.npm \
    npm ci \
 && test -f build/Release/vc_native.node \
 && test -f dist/src/main.js \
 && test -f packages/browser/dist/call-page.js \
 && test -f console/dist/index.html \
 && npm prune --omit=dev

# Runtime stage: Node, tini and what runs; the code belongs to root and is read-only to the
# unprivileged `node` user that runs it. Only DATA_DIR is writable by it.
FROM node:20-bookworm-slim AS runtime
# The offline `local` provider's programs (espeak-ng speech, PocketSphinx recognition); build with
# --build-arg LOCAL_PROVIDER_PACKAGES= to leave them out (≈ 40 MB) when only cloud providers are used.
ARG LOCAL_PROVIDER_PACKAGES="espeak-ng pocketsphinx pocketsphinx-en-us"
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ${LOCAL_PROVIDER_PACKAGES} \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# NODE_ENV=production makes the service refuse to start without KEYRING (a generated development
# keyring would differ per container). HOST=0.0.0.0 makes it require PUBLIC_BASE_URL and
# PUBLIC_MEDIA_URL (the defaults would hand clients ws://0.0.0.0:8081/...).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 MEDIA_PORT=8081 WORKER_HTTP_PORT=8082 DATA_DIR=/app/.data \
    METRICS_PORT=9464 METRICS_HOST=0.0.0.0
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build/Release/vc_native.node ./build/Release/vc_native.node
COPY --from=build /app/dist ./dist
COPY --from=build /app/src/db/migrations ./src/db/migrations
# node_modules/@voice-agent/* link to the workspaces; the console is served from console/dist.
COPY --from=build /app/packages ./packages
COPY --from=build /app/console/package.json ./console/package.json
COPY --from=build /app/console/dist ./console/dist
COPY deploy/healthcheck.mjs ./healthcheck.mjs
# Writable by the runtime user: the development keyring lands here when NODE_ENV is overridden
# (e.g. `docker run -e NODE_ENV=development ...` to try the image without KEYRING).
RUN mkdir -p /app/.data && chown node:node /app/.data && chmod 0700 /app/.data
USER node
# api, media socket, worker health, Prometheus /metrics (inside the container network only: publish it
# to a private network, never to the internet; it has no authentication).
EXPOSE 8080 8081 8082 9464
# GET /readyz of every role in ROLES (on PORT, MEDIA_PORT, WORKER_HTTP_PORT) with Node's fetch.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/healthcheck.mjs"]
# tini forwards SIGTERM to Node, which drains (DRAIN_GRACE_MS) and exits.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/main.js"]
