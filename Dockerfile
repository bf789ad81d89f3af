# The service as a container image: `docker build -t checkout .`, then run it with
# DATABASE_URL and PUBLIC_URL (compose.yaml runs it beside PostgreSQL). See docs/operations.md.
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles from source where no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The workspaces' manifests too: the lockfile names them (the SDK, packages/sdk).
COPY packages/sdk/package.json packages/sdk/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
# Never root: the image's `node` user (uid 1000) owns only /data.
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:3000/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# node itself as PID 1's child-free process: SIGTERM reaches the service, which drains.
CMD ["node", "--import", "tsx", "server/main.ts"]
