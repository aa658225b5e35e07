# syntax=docker/dockerfile:1
# hlbot: the daemon image. Multi-stage: build with dev dependencies, ship production dependencies only.
#   docker build -t hlbot .
#   docker run -d --name hlbot -e HLBOT_PRIVATE_KEY -v hlbot-state:/var/lib/hlbot hlbot
ARG NODE_VERSION=26

FROM node:${NODE_VERSION}-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the Node version.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
# `npm ci` runs `prepare`, which compiles src/ into dist/.
RUN npm ci && npm prune --omit=dev

FROM node:${NODE_VERSION}-slim
ENV NODE_ENV=production \
    HLBOT_CONFIG=/app/config/docker.yaml
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY config ./config
COPY strategies /etc/hlbot/strategies
RUN mkdir -p /var/lib/hlbot && chown node:node /var/lib/hlbot && chmod 700 /var/lib/hlbot
USER node
VOLUME ["/var/lib/hlbot"]
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:9464/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "/app/bin/hlbot.js"]
STOPSIGNAL SIGTERM
# Docker sends SIGKILL 10 s after SIGTERM unless told otherwise (docker run --stop-timeout): finish sooner.
CMD ["run", "--metrics-port", "9464", "--metrics-host", "0.0.0.0", "--grace-ms", "8000"]
