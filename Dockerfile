# Club Directory Service: multi-stage build on the official Bun image.
#   docker build -t club-directory .
#   docker compose up -d   (compose.yaml: the campus settings from campus.env, the tokens as Docker secrets)
# A deployment starts empty: CLUBS_SEED_FILE=none. To try the service out on the bundled sample
# (80 made-up clubs), start a fresh volume with CLUBS_SEED_FILE=/app/seed/seed.json. The admin token
# goes in a secret file (CLUBS_ADMIN_TOKEN_FILE), never in an -e value that `docker inspect` shows:
# docs/campus.md, "Run with Docker".

# 1. Production dependencies only, exactly as bun.lock pins them. --omit=peer: without it Bun
#    also installs elysia's optional peers typescript and @types/bun (dev dependencies, ~35 MB);
#    the service needs no peer its own dependencies do not already bring.
FROM oven/bun:1.4.5 AS deps
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production --omit=peer --ignore-scripts

# 2. The runtime: the source, the sample (with its logos) outside the volume, a non-root user.
FROM oven/bun:1.4.5-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    CLUBS_DATA_FILE=/app/data/db.json \
    CLUBS_SEED_FILE=none \
    CLUBS_LOG_LEVEL=info
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY data/seed.json ./seed/seed.json
COPY data/seed-logos ./seed/seed-logos
RUN mkdir -p /app/data && chown bun:bun /app/data
USER bun
VOLUME /app/data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["bun", "src/healthcheck.ts"]
CMD ["bun", "src/index.ts"]
