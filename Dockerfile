# fleetform with git, to run `fleetform reconcile` (or any command). Not tested here: no
# container daemon on the machines this project is built on.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY . .
RUN node scripts/build.js && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/fleetform
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/bin ./bin
RUN ln -s /opt/fleetform/bin/fleetform.js /usr/local/bin/fleetform && useradd --create-home --uid 10001 fleetform
USER fleetform
WORKDIR /home/fleetform
EXPOSE 9464
ENTRYPOINT ["fleetform"]
CMD ["reconcile", "--listen", "0.0.0.0:9464", "--log-format", "json"]
