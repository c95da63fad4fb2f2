#!/bin/sh
# Network proxy benchmark: bulk TCP throughput and connection setup rate
# through cordon's proxy (sandbox -> host.internal) vs direct on the host's
# loopback. All traffic stays on 127.0.0.1.
#   bench/net_bench.sh [CORDON_BIN] [MEGABYTES] [CONNECTIONS]
set -eu
CORDON=${1:-$(dirname "$0")/../build/cordon}
MB=${2:-2000}
CONNS=${3:-500}
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cordon-netbench.XXXXXX")
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM
cd "$WORK"
cat > server.py <<'PY'
import socket, sys, threading
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", 0)); l.listen(512)
print(l.getsockname()[1], flush=True)
def sink(c):
    # First byte says what to do: "s" sink everything, "c" close at once.
    if c.recv(1) == b"s":
        buf = bytearray(1 << 20)
        while c.recv_into(buf): pass
        c.sendall(b"k")
    c.close()
while True:
    c, _ = l.accept(); threading.Thread(target=sink, args=(c,), daemon=True).start()
PY
cat > client.py <<'PY'
import socket, sys, time
host, port, mode, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
if mode == "bulk":
    chunk = b"x" * (1 << 20)
    s = socket.create_connection((host, port)); s.sendall(b"s")
    t = time.monotonic()
    for _ in range(n): s.sendall(chunk)
    s.shutdown(socket.SHUT_WR); s.recv(1)
    print("%.1f" % (n / (time.monotonic() - t)))
else:
    addr = socket.getaddrinfo(host, port, socket.AF_INET)[0][4]
    t = time.monotonic()
    for _ in range(n):
        s = socket.create_connection(addr); s.sendall(b"c"); s.recv(1); s.close()
    print("%.0f" % ((time.monotonic() - t) / n * 1e6))
PY
$PY server.py > port.txt & SERVER=$!
while [ ! -s port.txt ]; do sleep 0.05; done
PORT=$(cat port.txt)
printf 'net {\n  allow_tcp ["host.internal:%s"]\n}\n' "$PORT" > p.sbx
mkdir -p home/.ssh home/.gnupg home/.aws home/.azure home/.config/gcloud home/.config/gh home/.kube home/.docker
run() { HOME="$WORK/home" "$CORDON" run --no-workspace-policy --policy p.sbx -- $PY client.py host.internal "$PORT" "$@"; }
D_BULK=$($PY client.py 127.0.0.1 "$PORT" bulk "$MB")
P_BULK=$(run bulk "$MB")
D_CONN=$($PY client.py 127.0.0.1 "$PORT" conn "$CONNS")
P_CONN=$(run conn "$CONNS")
echo "bulk throughput, MB/s:   direct $D_BULK   proxied $P_BULK   ratio $(echo "$P_BULK $D_BULK" | awk '{printf "%.0f%%", 100*$1/$2}')"
echo "connection setup, us:    direct $D_CONN   proxied $P_CONN   ratio $(echo "$P_CONN $D_CONN" | awk '{printf "%.2fx", $1/$2}')"
