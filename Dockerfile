# The production image: one image, two roles (docker-compose runs `serve` and `worker`).
FROM node:20-bookworm-slim
ENV NODE_ENV=production ONNXRUNTIME_NODE_INSTALL=skip
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY migrations ./migrations
RUN mkdir -p /var/lib/almanac && chown node:node /var/lib/almanac
USER node
EXPOSE 3000
ENTRYPOINT ["bin/almanac"]
CMD ["serve"]
