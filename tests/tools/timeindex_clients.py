#!/usr/bin/python3
"""Kafka clients for tests/integration/test_timeindex.c: time lookups,
compressed batches and LogAppendTime through Flume's Kafka listener.
Each command prints result lines the test compares exactly and exits 0
only when the clients themselves saw no error.

    timeindex_clients.py produce BROKER TOPIC N T0 STEP
        confluent-kafka: N messages "m<i>" to partition 0 with timestamps
        T0 + STEP * i (several per batch: linger.ms 20).
    timeindex_clients.py produce_ts BROKER TOPIC TS[,TS...]
        confluent-kafka: one message "at<ts>" per timestamp, in order,
        each batch flushed before the next.
    timeindex_clients.py times BROKER TOPIC T [T...]
        confluent-kafka offsets_for_times on partition 0: the offsets.
    timeindex_clients.py ktimes BROKER TOPIC T [T...]
        kafka-python offsets_for_times on partition 0: each answer as
        "offset@timestamp", None when no record is that new.
    timeindex_clients.py codecs BROKER TOPIC N
        kafka-python producers with gzip, snappy, lz4 and zstd, N messages
        each to partition 0 (value "<codec>-<i>-" and 200 bytes of 'x');
        then kafka-python reads partition 0 from the start: counts and
        mismatches.  (librdkafka 1.7 compresses only for brokers whose
        ApiVersions list Produce v0 (gzip, snappy), FindCoordinator (lz4)
        or Produce v7 and Fetch v10 (zstd); see flume-kafka(7).)
    timeindex_clients.py stamps BROKER TOPIC N
        N messages with timestamp 1000 from confluent-kafka, then the
        timestamp type and timestamp of each as kafka-python and
        confluent-kafka read them.

    timeindex_clients.py kerrors BROKER TOPIC
        Raw Kafka Produce v3 requests to partition 0, one batch each: a
        zstd bomb (1 GiB of zeros in 32 KiB), gzip bytes that do not
        inflate, an unknown codec (5), then a plain batch: the error
        codes, and the plain batch's base offset.

Run with the Debian python3-kafka and python3-confluent-kafka packages."""

import sys
import time


def produce(broker, topic, n, t0, step):
    from confluent_kafka import Producer
    errors = []

    def cb(err, msg):
        if err is not None:
            errors.append(str(err))

    p = Producer({"bootstrap.servers": broker, "linger.ms": 20,
                  "batch.num.messages": 50, "message.timeout.ms": 30000})
    for i in range(n):
        while True:
            try:
                p.produce(topic, value=b"m%d" % i, partition=0,
                          timestamp=t0 + step * i, on_delivery=cb)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    left = p.flush(30)
    print("produced %d, %d unacked, %d errors" % (n, left, len(errors)))
    return 0 if left == 0 and not errors else 1


def produce_ts(broker, topic, stamps):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": broker, "linger.ms": 0})
    for t in stamps:
        p.produce(topic, value=b"at%d" % t, partition=0, timestamp=t)
        if p.flush(10) != 0:
            return 1
    print("produced %d" % len(stamps))
    return 0


def times(broker, topic, stamps):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": broker, "group.id": "unused"})
    res = []
    for t in stamps:
        r = c.offsets_for_times([TopicPartition(topic, 0, t)], timeout=10)
        res.append(r[0].offset)
    c.close()
    print("offsets_for_times: %s" % " ".join(str(o) for o in res))
    return 0


def ktimes(broker, topic, stamps):
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(bootstrap_servers=broker, request_timeout_ms=10000)
    tp = TopicPartition(topic, 0)
    res = []
    for t in stamps:
        r = c.offsets_for_times({tp: t})[tp]
        res.append("None" if r is None else "%d@%d" % (r.offset, r.timestamp))
    c.close()
    print("kafka-python offsets_for_times: %s" % " ".join(res))
    return 0


PAD = b"x" * 200


def codecs(broker, topic, n):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    want = []
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        # kafka-python refuses zstd unless it is told the broker is Kafka
        # 2.1; it then sends Produce v7, which Flume speaks.
        extra = {"api_version": (2, 1, 0)} if codec == "zstd" else {}
        kp = KafkaProducer(bootstrap_servers=broker, compression_type=codec,
                           acks=1, linger_ms=50, **extra)
        futs = []
        for i in range(n):
            v = b"%s-%d-" % (codec.encode(), i) + PAD
            futs.append(kp.send(topic, value=v, partition=0))
            want.append(v)
        for f in futs:
            f.get(timeout=10)
        kp.close()
    c = KafkaConsumer(bootstrap_servers=broker, enable_auto_commit=False,
                      consumer_timeout_ms=3000)
    tp = TopicPartition(topic, 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    got = []
    deadline = time.time() + 30
    while len(got) < len(want) and time.time() < deadline:
        for m in c:
            got.append(m.value)
            if len(got) == len(want):
                break
    c.close()
    print("kafka-python read %d of %d, %d differ" % (
        len(got), len(want), sum(1 for a, b in zip(got, want) if a != b)))
    return 0


def stamps(broker, topic, n):
    from confluent_kafka import Consumer, Producer, TopicPartition
    from kafka import KafkaConsumer
    from kafka import TopicPartition as KTP
    p = Producer({"bootstrap.servers": broker, "linger.ms": 20})
    for i in range(n):
        p.produce(topic, value=b"s%d" % i, partition=0, timestamp=1000)
    if p.flush(10) != 0:
        return 1
    c = KafkaConsumer(bootstrap_servers=broker, enable_auto_commit=False,
                      consumer_timeout_ms=3000)
    tp = KTP(topic, 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    got = []
    for m in c:
        got.append(m)
        if len(got) == n:
            break
    c.close()
    for m in got:
        print("kafka-python %s type %d ts %d" % (m.value.decode(),
                                                 m.timestamp_type,
                                                 m.timestamp))
    k = Consumer({"bootstrap.servers": broker, "group.id": "unused",
                  "enable.auto.commit": False, "check.crcs": True})
    k.assign([TopicPartition(topic, 0, 0)])
    seen = 0
    deadline = time.time() + 20
    while seen < n and time.time() < deadline:
        for m in k.consume(n, 1.0):
            if m.error() is not None:
                print("confluent-kafka error %s" % m.error())
                return 1
            t = m.timestamp()
            print("confluent-kafka %s type %d ts %d" % (
                m.value().decode(), t[0], t[1]))
            seen += 1
    k.close()
    return 0


def crc32c(data):
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    c = 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def raw_batch(attributes, count, records):
    import struct
    after_crc = struct.pack(">hiqqqhii", attributes, count - 1, 0, 0, -1,
                            -1, -1, count) + records
    body = struct.pack(">iB", -1, 2) + struct.pack(">I", crc32c(after_crc)) \
        + after_crc
    return struct.pack(">qi", 0, len(body)) + body


def zstd_bomb(blocks):
    import struct
    z = struct.pack("<I", 0xFD2FB528) + bytes([0xC0, 7 << 3]) + \
        struct.pack("<Q", blocks << 17)
    for i in range(blocks):
        bh = (1 if i + 1 == blocks else 0) | (1 << 1) | (131072 << 3)
        z += bytes([bh & 0xFF, (bh >> 8) & 0xFF, (bh >> 16) & 0xFF, 0])
    return z


def plain_record(value):
    # length, attributes, timestampDelta, offsetDelta, key -1, value,
    # no headers (zigzag varints, all small)
    def zz(n):
        n = (n << 1) ^ (n >> 63)
        out = b""
        while n >= 0x80:
            out += bytes([(n & 0x7F) | 0x80])
            n >>= 7
        return out + bytes([n])
    rec = b"\x00" + zz(0) + zz(0) + zz(-1) + zz(len(value)) + value + zz(0)
    return zz(len(rec)) + rec


def kerrors(broker, topic):
    import socket
    import struct
    host, port = broker.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=30)

    def produce(corr, batch):
        t = topic.encode()
        body = struct.pack(">hhi", -1, 1, 10000) + struct.pack(">i", 1) + \
            struct.pack(">h", len(t)) + t + struct.pack(">ii", 1, 0) + \
            struct.pack(">i", len(batch)) + batch
        hdr = struct.pack(">hhi", 0, 3, corr) + struct.pack(">h", 4) + b"test"
        s.sendall(struct.pack(">i", len(hdr) + len(body)) + hdr + body)
        n = struct.unpack(">i", recv_all(s, 4))[0]
        r = recv_all(s, n)
        tl = struct.unpack(">h", r[8:10])[0]
        p = 10 + tl + 4
        _part, err, base = struct.unpack(">ihq", r[p:p + 14])
        return err, base

    res = []
    res.append(produce(1, raw_batch(4, 1000000, zstd_bomb(8192)))[0])
    res.append(produce(2, raw_batch(1, 1, b"this is not gzip"))[0])
    res.append(produce(3, raw_batch(5, 1, plain_record(b"v"))))
    err, base = produce(4, raw_batch(0, 1, plain_record(b"ok")))
    print("errors: %d %d %d, then %d at %d" % (res[0], res[1], res[2][0],
                                               err, base))
    s.close()
    return 0


def recv_all(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("closed")
        buf += chunk
    return buf


def main(argv):
    if len(argv) == 4 and argv[1] == "kerrors":
        return kerrors(argv[2], argv[3])
    if len(argv) == 7 and argv[1] == "produce":
        return produce(argv[2], argv[3], int(argv[4]), int(argv[5]),
                       int(argv[6]))
    if len(argv) == 5 and argv[1] == "produce_ts":
        return produce_ts(argv[2], argv[3],
                          [int(t) for t in argv[4].split(",")])
    if len(argv) >= 5 and argv[1] == "times":
        return times(argv[2], argv[3], [int(t) for t in argv[4:]])
    if len(argv) >= 5 and argv[1] == "ktimes":
        return ktimes(argv[2], argv[3], [int(t) for t in argv[4:]])
    if len(argv) == 5 and argv[1] == "codecs":
        return codecs(argv[2], argv[3], int(argv[4]))
    if len(argv) == 5 and argv[1] == "stamps":
        return stamps(argv[2], argv[3], int(argv[4]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
