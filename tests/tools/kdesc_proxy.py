#!/usr/bin/python3
"""Capture a Kafka client's requests through a running broker.

    /usr/bin/python3 tests/tools/kdesc_proxy.py OUTDIR PORT BROKER_PORT -- \
        CLIENT ARGS...

Where kdesc_capture.py answers only ApiVersions itself, this listens on
127.0.0.1:PORT and forwards every frame between CLIENT (every "{port}"
in ARGS replaced by PORT) and a broker on 127.0.0.1:BROKER_PORT whose
kafka_advertised_listener is 127.0.0.1:PORT, so a client goes
as far as the broker lets it (an admin client's CreateTopics after its
Metadata).  Each request is recorded as OUTDIR/CLIENT-Api-vN.bin (the
whole frame: [i32 size][header][body]), the first of each (key,
version) only.  Frames after a SaslHandshake v0 are bare SASL messages
and not recorded.  Used with Flume's broker and
kafka-python 2.0.2, kafkajs 2.2.4 (tests/integration/test_kafka_meta.c),
and with tests/compat's scenarios run by a small wrapper script named
for the client (its basename names the files), e.g. for
@platformatic/kafka, with a broker whose kafka_advertised_listener is
127.0.0.1:39413 and a 2-partition topic "capt":

    NODE_PATH=$(scripts/install-platformatic-kafka) \
    kdesc_proxy.py tests/fixtures/kdesc 39413 BROKER_PORT -- \
        ./platformatic 127.0.0.1:{port}

where ./platformatic runs platformatic_scenario.mjs's "produce $1 capt
0 10 gzip 1", "produce $1 capt 10 10 none 0", then "member $1 capt gcap"
for 6 s and SIGTERM.
"""

import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kdesc_capture import NAMES, read_exact  # noqa: E402


def pump_back(src, dst):
    try:
        while True:
            b = src.recv(65536)
            if not b:
                break
            dst.sendall(b)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(conn, outdir, client, seen, bport):
    up = socket.create_connection(("127.0.0.1", bport))
    threading.Thread(target=pump_back, args=(up, conn), daemon=True).start()
    raw = False
    try:
        while True:
            hdr = read_exact(conn, 4)
            if hdr is None:
                break
            (size,) = struct.unpack(">i", hdr)
            body = read_exact(conn, size)
            if body is None:
                break
            up.sendall(hdr + body)
            if raw or size < 4:
                continue
            key, version = struct.unpack(">hh", body[:4])
            if key == 17 and version == 0:
                raw = True
            name = NAMES.get(key, "key%d" % key)
            if (key, version) in seen:
                continue
            seen.add((key, version))
            path = os.path.join(outdir, "%s-%s-v%d.bin" % (client, name,
                                                           version))
            with open(path, "wb") as f:
                f.write(hdr + body)
    except OSError:
        pass
    up.close()
    conn.close()


def main(argv):
    if len(argv) < 6 or argv[4] != "--":
        sys.exit(__doc__)
    outdir, port, bport = argv[1], int(argv[2]), int(argv[3])
    cmd = argv[5:]
    client = os.path.basename(cmd[0])
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(8)
    seen = set()

    def accept():
        while True:
            conn, _ = ls.accept()
            threading.Thread(target=serve, args=(conn, outdir, client, seen,
                                                 bport), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    args = [a.replace("{port}", str(port)) for a in cmd]
    p = subprocess.Popen(args)
    try:
        p.wait(timeout=float(os.environ.get("KDESC_SECONDS", "20")))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


if __name__ == "__main__":
    main(sys.argv)
