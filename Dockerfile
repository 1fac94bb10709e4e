# Build stage: compiles the C++ addon and the TypeScript.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json binding.gyp tsconfig.json tsconfig.build.json ./
COPY native ./native
COPY src ./src
RUN npm ci && npm prune --omit=dev

# Runtime stage: only what runs, as an unprivileged user.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends espeak-ng tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/build/Release/vc_native.node ./build/Release/vc_native.node
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/src/db/migrations ./src/db/migrations
USER node
EXPOSE 8080 8081
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/main.js"]
