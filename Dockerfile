# netpresence's image: the package `npm pack` makes, installed with production dependencies only,
# run as a non-root user. test/e2e/package.test.ts runs the same pack and install commands on the
# host and checks this file against them (no container engine runs in the tests).

# 1. Build: the dev dependencies compile src/ to dist/ (npm pack runs `npm run build` first).
FROM node:20-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.build.json README.md ./
COPY scripts/build.js scripts/build-dashboard.js scripts/
# No install scripts here: `prepare` would bundle the dashboard page before its sources are
# copied; `npm pack` below builds dist/ and the page (prepack) once everything is in place.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY bin bin
COPY src src
COPY config config
RUN npm pack --pack-destination /pack && mv /pack/netpresence-*.tgz /pack/netpresence.tgz

# 2. Install: the package alone, production dependencies only (better-sqlite3's native module
#    is built here, where the compiler is).
FROM node:20-slim AS install
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/netpresence
COPY --from=build /pack/netpresence.tgz /tmp/netpresence.tgz
RUN echo '{"private":true,"allowScripts":{"better-sqlite3":true}}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/netpresence.tgz

# 3. Run: Node and the installed package, nothing else.
FROM node:20-slim
WORKDIR /opt/netpresence
COPY --from=install /opt/netpresence /opt/netpresence
ENV PATH=/opt/netpresence/node_modules/.bin:$PATH \
    NODE_ENV=production
# 65532: the conventional "nonroot" user of distroless images; no entry in /etc/passwd is needed.
USER 65532:65532
ENTRYPOINT ["netpresence"]
CMD ["--help"]
