# The loadgen harness in a container: Node 20, the package and its native
# LoadGen engine, no GPU code. It measures servers that run elsewhere (or on
# the host): point it at them with --endpoint, or a config file's endpoints.
# Untested here: this project's machines have no Docker engine.
#
#   docker build -t x-loadgen .
#   docker run --rm --network host --user "$(id -u):$(id -g)" -v "$PWD:/work" x-loadgen \
#     run --scenario Server --benchmark llama3_1-8b --endpoint http://gpu1:8000 \
#     --dataset cnn_eval.json --target-qps 20 --output-dir out

FROM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Scripts later: `install` and `prepare` build from sources not copied yet.
RUN npm ci --ignore-scripts
COPY . .
# The official image ships Node's headers under /usr/local: nothing to download.
RUN npx node-gyp rebuild --nodedir=/usr/local -j max \
 && npm run build:ts \
 && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /opt/loadgen
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/build/Release/loadgen.node ./build/Release/loadgen.node
COPY --from=build /src/examples ./examples
COPY --from=build /src/README.md /src/API.md ./
RUN ln -s /opt/loadgen/dist/cli.js /usr/local/bin/loadgen
# Relative paths (datasets, --output-dir) are taken from the mounted directory.
WORKDIR /work
ENTRYPOINT ["loadgen"]
CMD ["--help"]
