# syntax=docker/dockerfile:1
# Production image. It expects MONGODB_URI and JWT_SECRET (see docker-compose.yml); the embedded
# database is for development machines only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
# The platform dashboard, built by `npm run build` into dashboard/dist and served at /dashboard.
COPY dashboard ./dashboard
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
# As `npm run start:prod` (the bench checks): glibc's malloc keeps at most two arenas instead of one
# per thread that allocates (V8's compiler and collector threads, libuv's pool), each holding freed
# memory of its own: a lower peak under load, at the same CPU (bench/README.md, "Reading the numbers").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
# Owned by root: the service (user node) reads its code and dependencies but cannot change them.
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/dashboard/dist ./dashboard/dist
COPY package.json ./
# The image's unprivileged `node` user, by number so an orchestrator can check it is not root.
USER 1000:1000
EXPOSE 3000
# Ready = the database answers and the indexes are built (GET /health/live only says the process runs).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# main.ts drains in-flight requests on SIGTERM and exits 0.
STOPSIGNAL SIGTERM
# The Node options of `npm run start:prod` (keep them equal; the bench checks): an old-space limit
# of 256 MB bounds the memory under load, and semi-spaces of 4 MB bound the young generation, which
# start-up grows to its limit and which load keeps there, so its size is part of every peak; request
# objects die young, so a small one costs little CPU (bench/README.md, "Memory bounds").
# `--expose-gc` lets the service run one full collection once it listens, which gives back what
# start-up left (src/common/memory/release-start-up-memory.ts).
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=256", "--expose-gc", "dist/main.js"]
