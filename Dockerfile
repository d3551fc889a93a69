# syntax=docker/dockerfile:1
# Node 24 (LTS) on Debian 12, pinned to its minor release: patch releases come with a rebuild, a
# new minor is a change here (and in .ci/run, which tests on the same Node). A digest pin would
# freeze security fixes until someone bumps it by hand.

# Build stage: production dependencies, then the start bundle and the embedded database template.
FROM node:24.21-bookworm-slim AS build
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# `npm ci` runs the prepare script (scripts/prepare.mjs), so scripts/ must be here first; without
# src/ yet it has nothing to prepare and says so. The RUN after the sources does the work.
COPY scripts ./scripts
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json mikro-orm.config.ts ./
COPY src ./src
COPY rest-compat ./rest-compat
COPY schema ./schema
COPY dashboard ./dashboard
COPY web ./web
# The start bundle (dist/start/) and the migrated embedded database template
# (node_modules/.cache/souk/): a container's first start copies the template instead of running
# initdb. The template's files are made readable: PostgreSQL writes them 0600, for root here.
RUN node scripts/prepare.mjs && chmod -R a+rX node_modules/.cache/souk

# Runtime stage: what the build stage made, owned by root and read-only to the service's user.
FROM node:24.21-bookworm-slim AS runtime
# tini is PID 1: it forwards SIGTERM to node and reaps zombies.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
# SOUK_PUBLIC_URL defaults to http://localhost:4000 here; set it to the address users reach.
# NODE_ENV=production needs SOUK_SECRET_KEY (openssl rand -hex 32).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 SOUK_DATA_DIR=/data SOUK_ROLE=all
WORKDIR /app
COPY --from=build /app ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "scripts/start.mjs"]
