# Keyward's container image: the compiled server and the built dashboard on Node.js, as a non-root user, with the
# embedded database in the /data volume. Build: `docker build -t keyward .` (or `podman build --format docker …`,
# which keeps the HEALTHCHECK). BASE_IMAGE is any Debian-based Node.js 22 image with npm (the official slim one
# by default; the container test builds its own offline, see scripts/test-container.mjs).
ARG BASE_IMAGE=node:22-bookworm-slim

FROM ${BASE_IMAGE} AS deps
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary for this Node.js when it can; where it cannot (no access to GitHub)
# it is compiled, which needs a compiler and Node.js's headers (in /usr/local/include/node in the official images).
ENV npm_config_nodedir=/usr/local npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
COPY web/package.json web/
# --ignore-scripts: the root's `prepare` would build before the sources are here; the two packages that need
# their install step get it next.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts
RUN npm rebuild esbuild && (npm rebuild better-sqlite3 || ( \
      apt-get update && apt-get install -y --no-install-recommends python3 make g++ && \
      npm rebuild better-sqlite3 --build-from-source ))
# Only what the server needs at run time, made before the sources arrive so that a change of code reuses it: the
# dashboard's and the build's packages stay behind. The workspace field goes first, else npm keeps the dashboard's
# dependencies; the compiled SQLite binding is carried over.
RUN --mount=type=cache,target=/root/.npm mkdir -p /runtime/web && cp package.json package-lock.json /runtime/ && \
    cp web/package.json /runtime/web/ && cd /runtime && \
    npm ci --omit=dev --ignore-scripts --workspaces=false && \
    node -e "const f='package.json',p=JSON.parse(require('fs').readFileSync(f));delete p.workspaces;delete p.scripts.prepare;require('fs').writeFileSync(f,JSON.stringify(p,null,2))" && \
    npm prune --omit=dev --ignore-scripts && \
    rm -rf web && cp -r /app/node_modules/better-sqlite3/build node_modules/better-sqlite3/

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY web web
RUN npm run build

FROM ${BASE_IMAGE}
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /runtime/package.json ./
COPY --from=deps /runtime/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/web/dist web/dist
COPY bin bin
# `keyward …` (account create, backup, doctor) in the container runs the same compiled CLI as `npx keyward`.
RUN ln -s /app/bin/keyward.js /usr/local/bin/keyward && \
    groupadd --system --gid 10001 keyward && \
    useradd --system --uid 10001 --gid keyward --home-dir /data --no-create-home --shell /usr/sbin/nologin keyward && \
    mkdir -p /data && chown keyward:keyward /data
USER keyward
VOLUME /data
EXPOSE 3000
# No curl in the slim images: Node.js itself asks /healthz (200 while the database answers).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/server.js"]
