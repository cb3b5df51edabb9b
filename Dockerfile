# The stampede image `stampede k8s` runs in each pod (docs/scale-out.md):
#   docker build -t registry.example/stampede:0.1.0 . && docker push registry.example/stampede:0.1.0
# Built from this package's sources: npm ci, npm run build, then only the runtime dependencies are kept.
# Node 24 LTS, in support to April 2028 (Node 20's support ended in April 2026, 22's ends in April
# 2027); the package itself runs on Node 20 and later (package.json engines).
FROM node:24-slim AS build
WORKDIR /stampede
COPY package.json package-lock.json ./
# Lifecycle scripts off: `prepare` would build before the sources are copied; the build runs below.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY bin ./bin
COPY profiles ./profiles
RUN npm run build && npm prune --omit=dev

FROM node:24-slim
WORKDIR /stampede
COPY --from=build /stampede/package.json ./
COPY --from=build /stampede/node_modules ./node_modules
COPY --from=build /stampede/dist ./dist
COPY --from=build /stampede/bin ./bin
COPY --from=build /stampede/profiles ./profiles
RUN ln -s /stampede/bin/stampede.js /usr/local/bin/stampede
# The pods write their run folders to a mounted volume; nothing else needs to be writable.
USER node
ENTRYPOINT ["stampede"]
CMD ["--help"]
