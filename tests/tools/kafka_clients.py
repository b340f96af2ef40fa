#!/usr/bin/python3
"""Real Kafka clients against Flume's Kafka listener, for
tests/integration/test_kafka.c.  Each command prints one result line the
test compares exactly, and exits 0 only when everything matched.

    kafka_clients.py kp BROKER TOPIC N
        kafka-python 2.0.2: a producer with keys and headers, acks=all;
        a consumer (assign + seek_to_beginning) reads every value, key
        and header back.
    kafka_clients.py idem BROKER TOPIC N PROGRESS
        confluent-kafka (librdkafka): an enable.idempotence=true producer
        of N messages; every 1000 acknowledged it rewrites PROGRESS with
        the count (the test kills workers meanwhile).  Then reads every
        partition from the start: each message exactly once.
    kafka_clients.py times BROKER TOPIC
        confluent-kafka: 10 messages with timestamps T0 + 1000 i on
        partition 0, then offsets_for_times for T0 + 3500, T0 and
        T0 + 100000: the offsets; then kafka-python's offsets_for_times
        for the same: each "offset@timestamp" it got (None for none).
    kafka_clients.py codec BROKER TOPIC CODEC N
        confluent-kafka: an idempotent producer with compression.type
        CODEC sends N keyed records to partition 0; a consumer reads
        partition 0 from the start and compares every offset, key and
        value with what was sent.
    kafka_clients.py admin BROKER TOPIC
        kafka-python's KafkaAdminClient: create_topics (3 partitions),
        list_topics, delete_topics, list_topics again, and a second
        delete_topics of the same (now unknown) topic.

Run with the Debian python3-kafka and python3-confluent-kafka packages."""

import os
import sys
import time

T0 = 1700000000000


def kp(broker, topic, n):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    p = KafkaProducer(bootstrap_servers=broker, acks="all",
                      request_timeout_ms=10000)
    want = {}
    for i in range(n):
        key = b"key-%d" % (i % 5)
        value = b"value-%d" % i
        headers = [("seq", b"%d" % i), ("empty", b"")]
        p.send(topic, key=key, value=value, headers=headers).get(timeout=10)
        want[value] = (key, headers)
    p.close()
    c = KafkaConsumer(bootstrap_servers=broker, enable_auto_commit=False,
                      consumer_timeout_ms=3000)
    parts = [TopicPartition(topic, q)
             for q in sorted(c.partitions_for_topic(topic) or [])]
    c.assign(parts)
    c.seek_to_beginning(*parts)
    got = {}
    deadline = time.time() + 30
    while len(got) < n and time.time() < deadline:
        for m in c:
            got[m.value] = (m.key, list(m.headers))
            if len(got) == n:
                break
    c.close()
    bad = [v for v in want if got.get(v) != want[v]]
    print("kafka-python: %d produced, %d read, %d differ, %d partitions"
          % (n, len(got), len(bad), len(parts)))
    return 0 if not bad and len(got) == n else 1


def progress(path, n):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % n)
    os.rename(tmp, path)


def idem(broker, topic, n, path):
    from confluent_kafka import Consumer, Producer, TopicPartition
    acked = [0]
    errors = []

    def cb(err, msg):
        if err is not None:
            errors.append(str(err))
            return
        acked[0] += 1
        if acked[0] % 1000 == 0:
            progress(path, acked[0])

    p = Producer({"bootstrap.servers": broker, "enable.idempotence": True,
                  "linger.ms": 2, "message.timeout.ms": 60000})
    # The test kills a worker once 2/10 and once 6/10 are acknowledged;
    # at 3/10 and 7/10 sent, wait (delivering meanwhile) until it says it
    # did (PATH.goN exists), so a fast run cannot finish first.
    gates = (n * 3 // 10, n * 7 // 10)
    for i in range(n):
        if i in gates:
            deadline = time.time() + 120
            while (not os.path.exists("%s.go%d" % (path, i))
                   and time.time() < deadline):
                p.poll(0.01)
        while True:
            try:
                p.produce(topic, value=b"%d" % i, key=b"%d" % (i % 11),
                          on_delivery=cb)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    left = p.flush(60)
    progress(path, acked[0])
    meta = p.list_topics(topic, timeout=10).topics[topic].partitions
    c = Consumer({"bootstrap.servers": broker, "group.id": "unused",
                  "enable.auto.commit": False})
    c.assign([TopicPartition(topic, q, 0) for q in sorted(meta)])
    seen = {}
    deadline = time.time() + 60
    while len(seen) < n and time.time() < deadline:
        for m in c.consume(1000, 1.0):
            if m.error() is not None:
                continue
            v = int(m.value())
            seen[v] = seen.get(v, 0) + 1
    total = sum(seen.values())
    c.close()
    print("confluent-kafka idempotent: %d acked, %d unacked, %d errors, "
          "%d distinct, %d duplicates" % (acked[0], left, len(errors),
                                          len(seen), total - len(seen)))
    ok = (acked[0] == n and left == 0 and not errors and len(seen) == n
          and total == n)
    return 0 if ok else 1


def times(broker, topic):
    from confluent_kafka import Consumer, Producer, TopicPartition
    p = Producer({"bootstrap.servers": broker, "linger.ms": 0})
    for i in range(10):
        p.produce(topic, value=b"t%d" % i, partition=0, timestamp=T0 + 1000 * i)
        p.flush(10)
    c = Consumer({"bootstrap.servers": broker, "group.id": "unused"})
    res = []
    stamps = (T0 + 3500, T0, T0 + 100000)
    for t in stamps:
        r = c.offsets_for_times([TopicPartition(topic, 0, t)], timeout=10)
        res.append(r[0].offset)
    c.close()
    print("offsets_for_times: %s" % " ".join(str(o) for o in res))
    from kafka import KafkaConsumer
    from kafka import TopicPartition as KTP
    k = KafkaConsumer(bootstrap_servers=broker, request_timeout_ms=10000)
    got = []
    for t in stamps:
        r = k.offsets_for_times({KTP(topic, 0): t})[KTP(topic, 0)]
        got.append("None" if r is None else
                   "%d@%d" % (r.offset, r.timestamp))
    k.close()
    print("kafka-python offsets_for_times: %s" % " ".join(got))
    return 0 if res == [4, 0, -1] and got == [
        "4@%d" % (T0 + 4000), "0@%d" % T0, "None"] else 1


def codec_value(i):
    return b"record %d: the quick brown fox jumps over the lazy dog" % i


def codec(broker, topic, name, n):
    from confluent_kafka import Consumer, Producer, TopicPartition
    errors = []

    def cb(err, msg):
        if err is not None:
            errors.append(str(err))

    p = Producer({"bootstrap.servers": broker, "enable.idempotence": True,
                  "compression.type": name, "linger.ms": 20,
                  "message.timeout.ms": 30000})
    for i in range(n):
        p.produce(topic, value=codec_value(i), key=b"key-%d" % (i % 7),
                  partition=0, on_delivery=cb)
        p.poll(0)
    left = p.flush(30)
    c = Consumer({"bootstrap.servers": broker, "group.id": "unused",
                  "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.time() + 30
    while len(got) < n and time.time() < deadline:
        for m in c.consume(1000, 1.0):
            if m.error() is None:
                got.append((m.offset(), m.key(), m.value()))
    c.close()
    want = [(i, b"key-%d" % (i % 7), codec_value(i)) for i in range(n)]
    bad = sum(1 for i in range(n) if i >= len(got) or got[i] != want[i])
    print("confluent-kafka %s: %d unacked, %d errors, %d read, %d differ"
          % (name, left, len(errors), len(got), bad))
    return 0 if left == 0 and not errors and got == want else 1


def admin(broker, topic):
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.errors import UnknownTopicOrPartitionError
    a = KafkaAdminClient(bootstrap_servers=broker, request_timeout_ms=10000)
    a.create_topics([NewTopic(topic, 3, 1)], timeout_ms=10000)
    listed = topic in a.list_topics()
    r = a.delete_topics([topic], timeout_ms=10000)
    codes = [e[1] for e in r.topic_error_codes]
    # Metadata is not cached by the broker: gone as soon as the answer is.
    after = topic in a.list_topics()
    try:
        a.delete_topics([topic], timeout_ms=10000)
        again = "deleted twice"
    except UnknownTopicOrPartitionError:
        again = "unknown"
    a.close()
    print("admin: listed %s, delete %s, listed after %s, again %s" %
          (listed, codes, after, again))
    return 0 if listed and codes == [0] and not after and \
        again == "unknown" else 1


def main(argv):
    if len(argv) == 5 and argv[1] == "kp":
        return kp(argv[2], argv[3], int(argv[4]))
    if len(argv) == 6 and argv[1] == "idem":
        return idem(argv[2], argv[3], int(argv[4]), argv[5])
    if len(argv) == 4 and argv[1] == "times":
        return times(argv[2], argv[3])
    if len(argv) == 6 and argv[1] == "codec":
        return codec(argv[2], argv[3], argv[4], int(argv[5]))
    if len(argv) == 4 and argv[1] == "admin":
        return admin(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
