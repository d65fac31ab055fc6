#!/usr/bin/env bash
# Three peers and one etcd on this machine, for trying cluster mode (docs/cluster.md). Ctrl-C stops all.
#   peer 1: HTTP 6333, gRPC 6334, peers 6335     peer 2: 7333/7334/7335     peer 3: 8333/8334/8335
# Data in ./storage/cluster-local/{etcd,peer1,peer2,peer3}. Set VECTORSTORE_API_KEY to choose the key.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/fetch-etcd.sh
etcd_bin="${VECTORSTORE_TEST_ETCD_BIN:-.cache/etcd/usr/bin/etcd}"
[ -x "$etcd_bin" ] || etcd_bin="$(command -v etcd)"
[ -f dist/apps/server/src/main.js ] || npm run build

root="storage/cluster-local"
mkdir -p "$root"
secret_file="$root/cluster-secret"
[ -f "$secret_file" ] || (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$secret_file")
jwt_file="$root/jwt-secret"
[ -f "$jwt_file" ] || (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$jwt_file")
api_key="${VECTORSTORE_API_KEY:-local-cluster-key-$(cut -c1-16 "$secret_file")}"

pids=()
stop() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait || true
}
trap stop INT TERM EXIT

"$etcd_bin" --name local --data-dir "$root/etcd" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster local=http://127.0.0.1:2380 --log-level warn &
pids+=($!)

for i in 1 2 3; do
  base=$((5333 + i * 1000))
  VECTORSTORE_CLUSTER_ENABLED=true \
    VECTORSTORE_ETCD_ENDPOINTS=http://127.0.0.1:2379 \
    VECTORSTORE_CLUSTER_SECRET="$(cat "$secret_file")" \
    VECTORSTORE_JWT_SECRET="$(cat "$jwt_file")" \
    VECTORSTORE_API_KEY="$api_key" \
    VECTORSTORE_HOST=127.0.0.1 \
    VECTORSTORE_HTTP_PORT=$base VECTORSTORE_GRPC_PORT=$((base + 1)) VECTORSTORE_P2P_PORT=$((base + 2)) \
    VECTORSTORE_DATA_DIR="$root/peer$i" \
    node dist/apps/server/src/main.js &
  pids+=($!)
done

echo "cluster-local: etcd on 2379; peers on HTTP 6333, 7333, 8333; api-key: $api_key"
echo "try: curl -H 'api-key: $api_key' http://127.0.0.1:6333/cluster"
wait -n
