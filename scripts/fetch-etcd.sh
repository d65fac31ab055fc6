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
# apt-get download needs package lists; try the machine's first, else fetch lists into .cache/apt
# (no root needed for that).
if ! apt-get download etcd-server >/dev/null 2>&1; then
  mkdir -p apt/lists/partial apt/cache/archives/partial
  opts=(-o "Dir::State::Lists=$PWD/apt/lists" -o "Dir::Cache=$PWD/apt/cache" -o Debug::NoLocking=1)
  apt-get "${opts[@]}" update -qq
  apt-get "${opts[@]}" download etcd-server
fi
rm -rf etcd
dpkg-deb -x etcd-server_*.deb etcd
rm -f etcd-server_*.deb
version="$("./etcd/usr/bin/etcd" --version)"
echo "${version%%$'\n'*}"
