#!/usr/bin/env bash
# Fetches etcd for the cluster tests and `npm run cluster:local` without installing a service: Debian's
# etcd-server package, unpacked into .cache/etcd (gitignored). Does nothing when etcd is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=".cache/etcd/usr/bin/etcd"
if [ -x "$bin" ]; then exit 0; fi
if [ -n "${VECTORSTORE_TEST_ETCD_BIN:-}" ] && [ -x "$VECTORSTORE_TEST_ETCD_BIN" ]; then exit 0; fi
if command -v etcd >/dev/null 2>&1; then exit 0; fi

mkdir -p .cache
cd .cache
rm -f etcd-server_*.deb
# apt-get download needs fresh package lists on a new machine; try without updating first.
if ! apt-get download etcd-server >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then apt-get update -qq; else sudo apt-get update -qq; fi
  apt-get download etcd-server
fi
rm -rf etcd
dpkg-deb -x etcd-server_*.deb etcd
rm -f etcd-server_*.deb
"./etcd/usr/bin/etcd" --version | head -1
