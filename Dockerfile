# The production image: one image, two roles (docker-compose runs `serve` and `worker`).

# Build stage: all dependencies, then TypeScript compiled to dist/ and the workflows bundled once.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY migrations ./migrations
RUN npm run build

# Runtime stage: production dependencies and the compiled code only, run by an unprivileged user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    ALMANAC_DATA_DIR=/var/lib/almanac \
    ALMANAC_CACHE_DIR=/opt/almanac-cache
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN mkdir -p /var/lib/almanac /opt/almanac-cache && chown node:node /var/lib/almanac /opt/almanac-cache
USER node
# The default embedding model goes into the image (pinned and checksummed), so a container never needs the
# network to turn semantic search on. Production runs an external Temporal, so no CLI is fetched.
RUN bin/almanac provision model
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["bin/almanac"]
CMD ["serve"]
