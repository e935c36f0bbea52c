# warm in a container: built with the official Swift toolchain image, run on a
# slim Debian with only the runtime libraries (see docs/scaling-out.md).
#
#   docker build -t warm .
#   docker run --rm -v /srv/warm:/cache warm run --api https://market.example/ --cache-dir /cache --no-progress
#
# Checked by scripts/check-deploy.py (hadolint, checkov). Waivers, with their reasons:
# checkov:skip=CKV_DOCKER_2: no HEALTHCHECK: the image runs batch commands (warm run, cache merge) that have nothing to check, and the origin runs under Kubernetes, which ignores HEALTHCHECK and uses the Deployment's startup, readiness and liveness probes
# DL3008 (apt versions not pinned), at each apt-get install below: the stages are pinned to Debian 12 (bookworm), whose
# stable suite changes only for security fixes, and a superseded version leaves the archive, so a pinned version
# would break the build at the next security update; check-deploy.py checks that every package exists (apt-cache show).

# --- build: Swift 6 on Debian 12 (bookworm), the distribution the tool is developed on.
FROM swift:6.3-bookworm AS build
# hadolint ignore=DL3008
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libvips-dev libexif-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so that a source change does not refetch them. No Package.resolved: it is not committed,
# because the development machines resolve against a local mirror whose commit ids are not GitHub's (a file
# resolved there would not resolve here, and the reverse). So the image resolves Package.swift's `from:` ranges
# (the versions tested, or newer within the major version) when it is built; commit a Package.resolved made
# against GitHub here if images must be reproducible to the commit.
COPY Package.swift ./
RUN swift package resolve
# Package.swift also declares the test targets (Tests/Support and one folder per test target), and SwiftPM checks
# every target's folder when it loads the manifest: Tests/ comes along, although --product warm builds none of it.
# scripts/check-docker-context.py checks that these COPY lines are enough, from a clean clone.
COPY Sources ./Sources
COPY Tests ./Tests
# The Swift runtime and Foundation are linked in statically: the runtime image
# needs no Swift toolchain, only the C libraries below.
RUN swift build -c release --product warm --static-swift-stdlib \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/warm" /out/warm

# --- run: Debian 12 slim with libvips, libexif, SQLite and libxml2 (FoundationXML reads sitemaps with it), the
# versions warm is tested with.
FROM debian:bookworm-slim AS runtime
# hadolint ignore=DL3008
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libvips42 libexif12 libsqlite3-0 libxml2 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 warm \
    && useradd --system --uid 10001 --gid warm --home-dir /nonexistent --shell /usr/sbin/nologin warm \
    && install -d -o warm -g warm -m 0755 /cache
COPY --from=build /out/warm /usr/local/bin/warm
USER 10001:10001
VOLUME ["/cache"]
ENTRYPOINT ["/usr/local/bin/warm"]
CMD ["--help"]
