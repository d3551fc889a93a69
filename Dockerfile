# syntax=docker/dockerfile:1
# Build stage: install everything and type-check/compile with `npm run build`.
FROM node:lts-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime stage: production dependencies only, non-root, data dir as a volume.
FROM node:lts-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 SOUK_DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
# The sources are not here yet, so install's prepare step has nothing to do; it runs below.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/src ./src
COPY --from=build /app/rest-compat ./rest-compat
COPY --from=build /app/schema ./schema
COPY --from=build /app/dashboard ./dashboard
COPY --from=build /app/web ./web
COPY --from=build /app/mikro-orm.config.ts ./mikro-orm.config.ts
COPY --from=build /app/tsconfig.json ./tsconfig.json
# The start bundle and the embedded database template, baked into the image: a container's first
# start copies the template instead of running initdb.
RUN node scripts/prepare.mjs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["npm", "start"]
