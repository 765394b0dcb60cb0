# himorime's container image, for the trusted comment workflow (fork-safe
# mode) and for CI systems other than GitHub Actions. The build stage sets up
# what building and the unit tests need, builds, and runs the unit tests: an
# image exists only for a revision whose unit tests pass. The end-to-end tests
# (real processes timed against each other) are CI's: inside an image build,
# under whatever load the builder has, they are no check of the image. The
# runtime stage holds the runtime libraries and
# the two binaries, and valgrind, which counts instructions for suites that
# ask for them (docs/github-actions.md, "Gating on counts"), and runs as an
# unprivileged user.
#
#   docker build -t himorime .
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/src" -w /src himorime ci --against origin/main

FROM debian:12 AS build
WORKDIR /src
COPY . .
RUN scripts/setup --unit
RUN make
RUN make test-unit

FROM debian:12-slim AS runtime
RUN apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		libyaml-0-2 libcjson1 libgit2-1.5 libcurl4 ca-certificates valgrind \
	&& rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/himorime himorime
# himorime finds its spawner beside itself.
COPY --from=build /src/build/himorime /src/build/himorime-spawner /usr/local/bin/
USER 10001:10001
ENV HOME=/home/himorime
ENTRYPOINT ["/usr/local/bin/himorime"]
CMD ["help"]
