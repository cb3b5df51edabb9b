#!/usr/bin/env bash
# Installs the system programs the tests run for real (memcached, redis-server, headless Chromium, Prometheus, HdrHistogram's Java tools, zstd) when they are
# missing. Runs as `npm test`'s pretest, so the README's test command works on a fresh machine.
set -euo pipefail
needed=()
command -v memcached >/dev/null 2>&1 || needed+=(memcached)
command -v redis-server >/dev/null 2>&1 || needed+=(redis-server)
command -v chromium >/dev/null 2>&1 || needed+=(chromium)
# Debian's package: test/drivers/prometheus.test.ts scrapes a live run with it (no service is started here).
command -v prometheus >/dev/null 2>&1 || needed+=(prometheus)
# Debian's HdrHistogram for Java: test/cli/hlog-java.test.ts reads latency.hlog with its HistogramLogProcessor.
[ -f /usr/share/java/hdrhistogram.jar ] || needed+=(libhdrhistogram-java)
command -v java >/dev/null 2>&1 || needed+=(default-jre-headless)
# test/cli/trace.test.ts compresses its generated traces as the public ones are (zstd).
command -v zstd >/dev/null 2>&1 || needed+=(zstd)
[ ${#needed[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "tests need: ${needed[*]} — install them (apt-get install ${needed[*]}) or run as root" >&2
  exit 1
fi
echo "installing test dependencies: ${needed[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq "${needed[@]}" >/dev/null
