#!/usr/bin/python3
"""__consumer_offsets with Debian's Python clients (issue 28).

    confluent_kafka_coffsets.py BROKER PREFIX

kafka-python commits offset 7 for group PREFIX-g on PREFIX-t/0;
confluent-kafka reads __consumer_offsets from the beginning (assigned,
no group) and finds that commit as Kafka's coordinator writes it,
decoded here by Kafka's schemas (OffsetCommitKey v0/v1, OffsetCommitValue
v0-3) in the partition Kafka would use (abs(hashCode) % partitions); a
produce to __consumer_offsets and a delete of it are refused with
INVALID_TOPIC_EXCEPTION.  One line per check, "ok NAME" or "FAIL NAME:
why"; exit 0 only if all passed."""

import struct
import sys
import time

failed = 0


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok %s" % name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def java_hash(s):
    h = 0
    for u in struct.unpack(">%dH" % (len(s.encode("utf-16-be")) // 2),
                           s.encode("utf-16-be")):
        h = (31 * h + u) & 0xffffffff
    return h


def kstr(b, o):
    n = struct.unpack(">h", b[o:o + 2])[0]
    return b[o + 2:o + 2 + n].decode(), o + 2 + n


def decode_key(k):
    v = struct.unpack(">h", k[:2])[0]
    if v not in (0, 1):
        return None
    g, o = kstr(k, 2)
    t, o = kstr(k, o)
    p = struct.unpack(">i", k[o:o + 4])[0]
    return g, t, p


def decode_value(b):
    v = struct.unpack(">h", b[:2])[0]
    off = struct.unpack(">q", b[2:10])[0]
    return v, off


def main(broker, prefix):
    from confluent_kafka import Consumer, Producer, TopicPartition, \
        KafkaError
    from confluent_kafka.admin import AdminClient
    from kafka import KafkaConsumer, KafkaProducer
    from kafka import TopicPartition as KTP
    from kafka.structs import OffsetAndMetadata

    topic, group = prefix + "-t", prefix + "-g"
    p = KafkaProducer(bootstrap_servers=broker)
    for i in range(10):
        p.send(topic, b"v%d" % i, partition=0)
    p.flush()
    p.close()
    c = KafkaConsumer(bootstrap_servers=broker, group_id=group,
                      enable_auto_commit=False)
    c.assign([KTP(topic, 0)])
    c.commit({KTP(topic, 0): OffsetAndMetadata(7, "")})
    check("kafka-python commit", c.committed(KTP(topic, 0)) == 7)
    c.close(autocommit=False)

    a = AdminClient({"bootstrap.servers": broker})
    md = a.list_topics(timeout=10)
    co = md.topics.get("__consumer_offsets")
    check("metadata lists __consumer_offsets", co is not None and
          co.error is None, "%s" % co)
    if co is None:
        return
    nparts = len(co.partitions)
    want = (java_hash(group) & 0x7fffffff) % nparts
    r = Consumer({"bootstrap.servers": broker, "group.id": prefix + "-r",
                  "enable.auto.commit": False})
    r.assign([TopicPartition("__consumer_offsets", i, 0)
              for i in range(nparts)])
    found = None
    deadline = time.time() + 20
    while found is None and time.time() < deadline:
        m = r.poll(0.5)
        if m is None or m.error() or m.key() is None:
            continue
        k = decode_key(m.key())
        if k == (group, topic, 0) and m.value() is not None:
            found = (m.partition(), decode_value(m.value()))
    r.close()
    check("commit record decoded", found is not None and
          found[1] == (1, 7), "%s" % (found,))
    check("Kafka's partition for the group", found is not None and
          found[0] == want, "got %s, want %d" % (found, want))

    errs = []
    pr = Producer({"bootstrap.servers": broker, "retries": 0,
                   "message.timeout.ms": 10000})
    pr.produce("__consumer_offsets", b"x", key=b"k", partition=0,
               on_delivery=lambda e, m: errs.append(e))
    pr.flush(15)
    check("produce refused", len(errs) == 1 and errs[0] is not None and
          errs[0].code() == KafkaError.TOPIC_EXCEPTION, "%s" % errs)
    fs = a.delete_topics(["__consumer_offsets"], request_timeout=10)
    try:
        fs["__consumer_offsets"].result(timeout=15)
        check("delete refused", False, "deleted")
    except Exception as e:
        check("delete refused", e.args[0].code() == KafkaError.TOPIC_EXCEPTION,
              "%s" % e)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
    sys.exit(1 if failed else 0)
