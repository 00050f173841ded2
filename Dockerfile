# The troupe worker (and CLI) image used by docker-compose.yml. The TypeScript sources run through
# tsx, as on a laptop, so the image needs no build step.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
USER node
ENTRYPOINT ["node", "bin/troupe.js"]
CMD ["worker"]
