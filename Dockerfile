# The troupe worker (and CLI) image used by docker-compose.yml. The TypeScript sources run through
# tsx, as on a laptop, so the image needs no build step. It runs as the unprivileged `node` user;
# deploy/worker-healthcheck.js is its health check (see the worker service in docker-compose.yml).
FROM node:20.20.2-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
# the one place the worker writes: generated entries that bundle a --plugins module into the workflow
RUN mkdir -p .troupe && chown node:node .troupe
USER node
ENTRYPOINT ["node", "bin/troupe.js"]
CMD ["worker"]
