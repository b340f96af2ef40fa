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


PAD = b"x" * 200


def codecs(broker, topic, n):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    want = []
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        # kafka-python refuses zstd unless it believes the broker is Kafka
        # 2.1 (Produce v7); Flume speaks Produce v3, which carries zstd
        # batches all the same, so its sender is told to speak v3.
        extra = {"api_version": (2, 1, 0)} if codec == "zstd" else {}
        kp = KafkaProducer(bootstrap_servers=broker, compression_type=codec,
                           acks=1, linger_ms=50, **extra)
        if codec == "zstd":
            kp._sender.config["api_version"] = (0, 11, 0)
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


def main(argv):
    if len(argv) == 7 and argv[1] == "produce":
        return produce(argv[2], argv[3], int(argv[4]), int(argv[5]),
                       int(argv[6]))
    if len(argv) == 5 and argv[1] == "produce_ts":
        return produce_ts(argv[2], argv[3],
                          [int(t) for t in argv[4].split(",")])
    if len(argv) >= 5 and argv[1] == "times":
        return times(argv[2], argv[3], [int(t) for t in argv[4:]])
    if len(argv) == 5 and argv[1] == "codecs":
        return codecs(argv[2], argv[3], int(argv[4]))
    if len(argv) == 5 and argv[1] == "stamps":
        return stamps(argv[2], argv[3], int(argv[4]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
