#!/usr/bin/python3
"""Capture a Kafka client's requests for tests/unit/test_kdesc.c.

    /usr/bin/python3 tests/tools/kdesc_capture.py OUTDIR -- CLIENT ARGS...

Listens on a free loopback port, runs CLIENT with every "{port}" in ARGS
replaced by it, and answers only ApiVersions: with a v0 header and the
body of the request's version, advertising the ranges of the declarative
codec (proto/kafka/kmsg_*.c) and of a Kafka 4.0 broker for the rest.
Every other request is recorded as OUTDIR/CLIENT-Api-vN.bin (the whole
frame: [i32 size][header][body]), the first of each (key, version) only,
and left unanswered, or with KDESC_GROUP=1 answered as far as a consumer
group needs (see answer()); the client is stopped after KDESC_SECONDS
(4).  Used with kcat 1.7.1 / librdkafka 2.0.2:

    kdesc_capture.py tests/fixtures/kdesc -- kcat -b 127.0.0.1:{port} -G grp t
    KDESC_GROUP=1 KDESC_SECONDS=9 kdesc_capture.py tests/fixtures/kdesc -- \
        kcat -b 127.0.0.1:{port} -G grp t

With KDESC_TXN=1 it answers what a transactional producer needs (see
txn_answer()) and prints the requests it left unanswered; the clients
of tests/tools/kdesc_txn/ (init, produce, send offsets, commit, abort)
gave the transaction fixtures:

    KDESC_TXN=1 KDESC_SECONDS=8 kdesc_capture.py tests/fixtures/kdesc -- \
        tests/tools/kdesc_txn/confluent-kafka-txn 127.0.0.1:{port}
    NODE_PATH=$(scripts/install-kafkajs) KDESC_TXN=1 KDESC_SECONDS=8 \
        kdesc_capture.py tests/fixtures/kdesc -- \
        tests/tools/kdesc_txn/kafkajs-txn 127.0.0.1:{port}
    NODE_PATH=$(scripts/install-platformatic-kafka) kdesc_capture.py \
        tests/fixtures/kdesc -- \
        tests/tools/kdesc_txn/platformatic-kafka-txn 127.0.0.1:{port}

(Metadata's fixtures of these runs were left out: nothing new.)
"""

import os
import socket
import struct
import subprocess
import sys
import threading
import time

NAMES = {0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata",
         8: "OffsetCommit", 9: "OffsetFetch", 10: "FindCoordinator",
         11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup",
         14: "SyncGroup", 15: "DescribeGroups", 16: "ListGroups",
         17: "SaslHandshake", 18: "ApiVersions", 19: "CreateTopics",
         20: "DeleteTopics", 21: "DeleteRecords", 22: "InitProducerId",
         23: "OffsetForLeaderEpoch", 24: "AddPartitionsToTxn",
         25: "AddOffsetsToTxn", 26: "EndTxn", 28: "TxnOffsetCommit",
         29: "DescribeAcls", 30: "CreateAcls",
         31: "DeleteAcls", 32: "DescribeConfigs", 33: "AlterConfigs",
         35: "DescribeLogDirs", 36: "SaslAuthenticate",
         37: "CreatePartitions", 42: "DeleteGroups",
         44: "IncrementalAlterConfigs", 46: "ListPartitionReassignments",
         47: "OffsetDelete", 50: "DescribeUserScramCredentials",
         51: "AlterUserScramCredentials", 60: "DescribeCluster",
         61: "DescribeProducers", 65: "DescribeTransactions",
         66: "ListTransactions", 68: "ConsumerGroupHeartbeat",
         69: "ConsumerGroupDescribe", 75: "DescribeTopicPartitions"}
# (key, min, max) advertised.
RANGES = [(0, 0, 11), (1, 4, 17), (2, 1, 9), (3, 0, 13), (8, 0, 9),
          (9, 0, 9), (10, 0, 6), (11, 0, 9), (12, 0, 4), (13, 0, 5),
          (14, 0, 5), (15, 0, 6), (16, 0, 5), (17, 0, 1), (18, 0, 4),
          (19, 0, 7), (20, 0, 6), (21, 0, 2), (22, 0, 5), (23, 0, 4),
          (24, 0, 5), (25, 0, 4), (26, 0, 5), (28, 0, 5),
          (29, 0, 3), (30, 0, 3), (31, 0, 3), (32, 0, 4), (33, 0, 2),
          (35, 0, 4), (36, 0, 2), (37, 0, 3), (42, 0, 2), (44, 0, 1),
          (46, 0, 0), (47, 0, 0), (50, 0, 0), (51, 0, 0), (60, 0, 2),
          (61, 0, 0), (65, 0, 0), (66, 0, 1), (68, 0, 1), (69, 0, 1),
          (75, 0, 0)]


def uvarint(n):
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7f) | 0x80])
        n >>= 7
    return out + bytes([n])


def api_versions(version):
    if version >= 3:
        body = struct.pack(">h", 0) + uvarint(len(RANGES) + 1)
        for k, lo, hi in RANGES:
            body += struct.pack(">hhh", k, lo, hi) + b"\x00"
        return body + struct.pack(">i", 0) + b"\x00"
    body = struct.pack(">hi", 0, len(RANGES))
    for k, lo, hi in RANGES:
        body += struct.pack(">hhh", k, lo, hi)
    return body + (struct.pack(">i", 0) if version >= 1 else b"")


def read_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def kstr(s):
    if s is None:
        return struct.pack(">h", -1)
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def kbytes(b):
    return struct.pack(">i", len(b)) + b


GROUP = os.environ.get("KDESC_GROUP")   # answer a consumer group's requests
TXN = os.environ.get("KDESC_TXN")       # answer a transactional producer's


def txn_answer(key, version, port):
    """With KDESC_TXN=1: what a transactional producer writing one
    record to "t"/0 needs (init, produce, send offsets, commit, abort),
    at the versions librdkafka 2.0.2 and kafkajs 2.2.4 pick; None for
    the others (left unanswered, so a new version shows as a stall)."""
    t0 = struct.pack(">i", 0)           # throttle_time_ms
    ok = struct.pack(">h", 0)
    tp = (struct.pack(">i", 1) + kstr("t") + struct.pack(">i", 1) +
          struct.pack(">ih", 0, 0))     # [t [0 NONE]]
    if key == 3 and version == 4:
        return answer(key, version, None, port, group=True)
    if key == 3 and version == 6:
        return (t0 + struct.pack(">i", 1) + struct.pack(">i", 0) +
                kstr("127.0.0.1") + struct.pack(">i", port) + kstr(None) +
                kstr(None) + struct.pack(">i", 0) + struct.pack(">i", 1) +
                ok + kstr("t") + b"\x00" + struct.pack(">i", 1) +
                struct.pack(">hii", 0, 0, 0) + struct.pack(">ii", 1, 0) +
                struct.pack(">ii", 1, 0) + struct.pack(">i", 0))
    if key == 10 and version <= 2:
        return (t0 if version >= 1 else b"") + ok + \
            (kstr(None) if version >= 1 else b"") + \
            struct.pack(">i", 0) + kstr("127.0.0.1") + struct.pack(">i", port)
    if key == 22 and version <= 4:
        tag = b"\x00" if version >= 2 else b""
        return tag + t0 + ok + struct.pack(">qh", 1000, 0) + tag
    if key in (24, 28) and version <= 2:
        return t0 + tp
    if key in (24, 28) and version == 3:
        # Flexible: the header's and every struct's tagged fields.
        return (b"\x00" + t0 + uvarint(2) + uvarint(2) + b"t" + uvarint(2) +
                struct.pack(">ih", 0, 0) + b"\x00\x00\x00")
    if key in (25, 26) and version == 3:
        return b"\x00" + t0 + ok + b"\x00"
    if key in (25, 26) and version <= 2:
        return t0 + ok
    if key == 0 and 3 <= version <= 7:
        part = struct.pack(">ihqq", 0, 0, 0, -1) + \
            (struct.pack(">q", 0) if version >= 5 else b"")
        return (struct.pack(">i", 1) + kstr("t") + struct.pack(">i", 1) +
                part + t0)
    return None


def answer(key, version, frame, port, group=False):
    """The response body to a request, or None to leave it unanswered.

    ApiVersions always; with KDESC_GROUP=1 also what a librdkafka 2.0.2
    consumer of topic "t" needs to reach its group's steady state
    (Metadata v4, FindCoordinator v2, JoinGroup v5, SyncGroup v3,
    OffsetFetch, Heartbeat), one partition led by this server."""
    if key == 18:
        return api_versions(version)
    if TXN and not group:
        return txn_answer(key, version, port)
    if not GROUP and not group:
        return None
    if key == 3 and version == 4:
        return (struct.pack(">ii", 0, 1) + struct.pack(">i", 0) +
                kstr("127.0.0.1") + struct.pack(">i", port) + kstr(None) +
                kstr(None) + struct.pack(">i", 0) + struct.pack(">i", 1) +
                struct.pack(">h", 0) + kstr("t") + b"\x00" +
                struct.pack(">i", 1) + struct.pack(">hii", 0, 0, 0) +
                struct.pack(">ii", 1, 0) + struct.pack(">ii", 1, 0))
    if key == 10 and version == 2:
        return (struct.pack(">ih", 0, 0) + kstr(None) +
                struct.pack(">i", 0) + kstr("127.0.0.1") +
                struct.pack(">i", port))
    if key == 11 and version == 5:
        # The leader's view: this member ("m1") is the only one.
        return (struct.pack(">ihi", 0, 0, 1) + kstr("range") + kstr("m1") +
                kstr("m1") + struct.pack(">i", 1) + kstr("m1") + kstr(None) +
                kbytes(JOIN_META))
    if key == 14 and version == 3:
        assign = (struct.pack(">hi", 0, 1) + kstr("t") +
                  struct.pack(">ii", 1, 0) + struct.pack(">i", -1))
        return struct.pack(">ih", 0, 0) + kbytes(assign)
    if key == 12:
        return struct.pack(">ih", 0, 0) if version >= 1 else \
            struct.pack(">h", 0)
    return None


# ConsumerProtocolSubscription v0 for topic "t".
JOIN_META = struct.pack(">hi", 0, 1) + kstr("t") + struct.pack(">i", -1)


def serve(conn, outdir, client, seen, port):
    while True:
        size = read_exact(conn, 4)
        if size is None:
            return
        (n,) = struct.unpack(">i", size)
        frame = read_exact(conn, n)
        if frame is None:
            return
        key, version, corr = struct.unpack(">hhi", frame[:8])
        name = "%s-%s-v%d.bin" % (client, NAMES.get(key, str(key)), version)
        if key != 18 and name not in seen:
            seen.add(name)
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(size + frame)
            print("captured", name)
        body = answer(key, version, frame, port)
        if body is None and TXN:
            print("unanswered", name)
        if body is not None:
            resp = struct.pack(">i", corr) + body
            conn.sendall(struct.pack(">i", len(resp)) + resp)


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    outdir, cmd = argv[1], argv[3:]
    os.makedirs(outdir, exist_ok=True)
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    port = ls.getsockname()[1]
    seen = set()
    client = os.path.basename(cmd[0])

    def accept():
        while True:
            conn, _ = ls.accept()
            threading.Thread(target=serve,
                             args=(conn, outdir, client, seen, port),
                             daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    p = subprocess.Popen([a.replace("{port}", str(port)) for a in cmd],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(float(os.environ.get("KDESC_SECONDS", "4")))
    p.terminate()
    p.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
