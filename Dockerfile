# Club Directory Service: multi-stage build on the official Bun image.
#   docker build -t club-directory .
#   docker run -p 3000:3000 -v clubs-data:/app/data -e CLUBS_ADMIN_TOKEN=change-me-please club-directory

# 1. Production dependencies only, exactly as bun.lock pins them. --omit=peer: without it Bun
#    also installs elysia's optional peers typescript and @types/bun (dev dependencies, ~35 MB);
#    the service needs no peer its own dependencies do not already bring.
FROM oven/bun:1.4.5 AS deps
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production --omit=peer --ignore-scripts

# 2. The runtime: the source, the sample data outside the volume, a non-root user.
FROM oven/bun:1.4.5-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    CLUBS_DATA_FILE=/app/data/db.json \
    CLUBS_SEED_FILE=/app/seed/seed.json \
    CLUBS_LOG_LEVEL=info
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY data/seed.json ./seed/seed.json
RUN mkdir -p /app/data && chown bun:bun /app/data
USER bun
VOLUME /app/data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["bun", "src/healthcheck.ts"]
CMD ["bun", "src/index.ts"]
