# A first plain image; the deployment issue hardens it (multi-stage, non-root, health check).
FROM oven/bun:1.4.5
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production
COPY src ./src
COPY data/seed.json ./data/seed.json
ENV PORT=3000 HOST=0.0.0.0 CLUBS_DATA_FILE=/app/data/db.json
EXPOSE 3000
VOLUME /app/data
CMD ["bun", "src/index.ts"]
