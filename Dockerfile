# The service image: Node.js 24 runs the TypeScript sources directly (type stripping), so the image
# needs only the production dependencies and the sources — no build step, no compiler, no dev tooling.
FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so a source change does not reinstall them. No install scripts: no production
# dependency needs one (pg is pure JavaScript, SQLite is node:sqlite).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

COPY src ./src
# `wfs` (src/cli/main.ts) runs its commands through the integrator CLI's runner and includes its
# `login` and `api` commands, which call the API through the typed client: their TypeScript sources
# too (test/app/image.test.ts checks the image holds every file src/ reaches).
COPY packages/cli/src ./packages/cli/src
COPY packages/client/src ./packages/client/src

# The default SQLite file lives in ./data; with PostgreSQL (DATABASE_URL=postgres://…) it stays empty.
RUN mkdir -p /app/data && chown node:node /app/data
USER node

# Listen on every interface inside the container; the load balancer reaches it on 8080.
ENV HOST=0.0.0.0 \
    PORT=8080
EXPOSE 8080

# Liveness only: readiness (/readyz, database and Redis) is for the load balancer, so that a database
# outage takes instances out of rotation instead of getting them restarted.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# node itself is the main process, so SIGTERM reaches the server, which drains in-flight requests
# (up to 10 s) and closes its database pool. Run with an init (compose: init: true) to reap zombies.
STOPSIGNAL SIGTERM
# The same V8 flags as `npm start` (package.json; test/app/start-command.test.ts keeps them equal):
# docs/deployment.md, "Runtime flags".
CMD ["node", "--max-semi-space-size=16", "src/app/server.ts"]
