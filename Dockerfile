# syntax=docker/dockerfile:1
# hlbot: the daemon image. Multi-stage: build with dev dependencies, ship production dependencies only.
#   docker build -t hlbot .
#   docker run -d --name hlbot -v hlbot-state:/var/lib/hlbot -v "$PWD/strategies:/etc/hlbot/strategies:ro" \
#     -v "$PWD/key.hex:/run/secrets/hlbot-key:ro" -e HLBOT_PRIVATE_KEY_FILE=/run/secrets/hlbot-key hlbot
# No strategy is baked in: the image refuses to start with none mounted at /etc/hlbot/strategies.
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
# What compiling the SQLite binding left behind (sources, objects, the static library): only the
# loadable binding build/Release/better_sqlite3.node is used at run time.
RUN cd node_modules/better-sqlite3 \
 && rm -rf deps src binding.gyp build/deps build/Release/obj build/Release/obj.target \
      build/Release/.deps build/Release/sqlite3.a build/Release/test_extension.node \
 && test -f build/Release/better_sqlite3.node

FROM node:${NODE_VERSION}-slim
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="hlbot" \
      org.opencontainers.image.description="TWAP trading and HYPE staking bot for the Hyperliquid venue" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.source="https://github.com/hlbot/hlbot" \
      org.opencontainers.image.documentation="https://github.com/hlbot/hlbot#operations"
ENV NODE_ENV=production \
    HLBOT_CONFIG=/app/config/docker.yaml
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY config ./config
# The examples stay readable at /app/strategies; /etc/hlbot/strategies is empty until you mount yours.
COPY strategies ./strategies
RUN mkdir -p /var/lib/hlbot /etc/hlbot/strategies && chown node:node /var/lib/hlbot && chmod 700 /var/lib/hlbot
USER node
VOLUME ["/var/lib/hlbot"]
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:9464/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "/app/bin/hlbot.js"]
STOPSIGNAL SIGTERM
# Docker sends SIGKILL 10 s after SIGTERM unless told otherwise (docker run --stop-timeout): finish sooner.
# A send still in flight after 8 s (venue.timeoutMs is 10 s) ends unknown and is reconciled at the next
# start; to let it finish, raise both: docker run --stop-timeout 40 … run --grace-ms 30000.
CMD ["run", "--metrics-port", "9464", "--metrics-host", "0.0.0.0", "--grace-ms", "8000"]
