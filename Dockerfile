# syntax=docker/dockerfile:1
# Muster in a container: docs/deploy.md ("In a container") says how to run it and what to set.

# Build: the TypeScript compiler and the other dev dependencies, and the tools better-sqlite3
# needs when no prebuilt binary fits. Its install scripts run after `npm ci --ignore-scripts`,
# since the package's own `prepare` (a build) cannot run before the sources are copied.
FROM node:20-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Run: production dependencies and dist only, as the unprivileged `node` user.
FROM node:20-slim
ENV NODE_ENV=production \
    MUSTER_HOST=0.0.0.0 \
    MUSTER_PORT=7420 \
    MUSTER_DB=sqlite:/data/muster.db \
    MUSTER_PUBLIC_URL=http://localhost:7420/
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# /data holds the SQLite file and the admin-token file beside it (on PostgreSQL, ./.muster/admin-token).
RUN mkdir /data && chown node:node /data
USER node
WORKDIR /data
VOLUME /data
EXPOSE 7420
# slim has no curl: Node's own fetch asks /health on the loopback address.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.MUSTER_PORT||7420)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The file runs as its own command, so the node flags on its first line apply (see src/cli/main.ts).
ENTRYPOINT ["/app/dist/cli/main.js"]
CMD ["serve"]
