#!/usr/bin/python3
"""Real Kafka clients against the names Kafka reserves for its internal
topics, for tests/integration/test_internal.c.  Each command prints one
result line the test compares exactly.

    kafka_internal.py commit BROKER GROUP TOPIC OFFSET
        kafka-python: commit OFFSET for GROUP on TOPIC partition 0 (a
        consumer without a subscription, as Burrow's and the simple
        consumers do), then read it back: "committed N".
    kafka_internal.py committed BROKER GROUP TOPIC
        kafka-python: GROUP's committed offset on TOPIC partition 0:
        "committed N" (None when there is none).
    kafka_internal.py refuse BROKER
        What each client gets for Kafka's internal topic names:
        kafka-python's KafkaAdminClient create_topics and delete_topics
        of __consumer_offsets, confluent-kafka's AdminClient of
        __transaction_state (the error names), a raw Produce v3 of one
        record to __consumer_offsets partition 0 (the error code), and
        whether kafka-python's list_topics shows either name; then
        kafka-python's create_topics and delete_topics of flume.pid, the
        name of the broker's lock file; last kafka-python's alter_configs
        of __consumer_offsets (cleanup.policy=delete: the error code) and
        create_partitions of it (to 80: the error name).

Run with the Debian python3-kafka and python3-confluent-kafka packages."""

import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timeindex_clients import plain_record, raw_batch, recv_all  # noqa: E402


def commit(broker, group, topic, offset):
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata
    c = KafkaConsumer(bootstrap_servers=broker, group_id=group,
                      enable_auto_commit=False, request_timeout_ms=20000)
    tp = TopicPartition(topic, 0)
    c.assign([tp])
    c.commit({tp: OffsetAndMetadata(offset, "")})
    got = c.committed(tp)
    c.close(autocommit=False)
    print("committed %s" % got)
    return 0


def committed(broker, group, topic):
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(bootstrap_servers=broker, group_id=group,
                      enable_auto_commit=False, request_timeout_ms=20000)
    got = c.committed(TopicPartition(topic, 0))
    c.close(autocommit=False)
    print("committed %s" % got)
    return 0


def kp_error(call):
    from kafka.errors import KafkaError
    try:
        call()
    except KafkaError as e:
        return type(e).__name__
    return "OK"


def ck_error(futures):
    from confluent_kafka import KafkaException
    for f in futures.values():
        try:
            f.result(timeout=15)
        except KafkaException as e:
            return e.args[0].name()
    return "OK"


def raw_produce(broker, topic):
    host, port = broker.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=30)
    t = topic.encode()
    batch = raw_batch(0, 1, plain_record(b"not yours"))
    body = struct.pack(">hhi", -1, 1, 10000) + struct.pack(">i", 1) + \
        struct.pack(">h", len(t)) + t + struct.pack(">ii", 1, 0) + \
        struct.pack(">i", len(batch)) + batch
    hdr = struct.pack(">hhi", 0, 3, 1) + struct.pack(">h", 4) + b"test"
    s.sendall(struct.pack(">i", len(hdr) + len(body)) + hdr + body)
    n = struct.unpack(">i", recv_all(s, 4))[0]
    r = recv_all(s, n)
    s.close()
    tl = struct.unpack(">h", r[8:10])[0]
    p = 10 + tl + 4
    return struct.unpack(">ih", r[p:p + 6])[1]


def refuse(broker):
    from confluent_kafka.admin import AdminClient, NewTopic as CNewTopic
    from kafka.admin import KafkaAdminClient, NewTopic
    a = KafkaAdminClient(bootstrap_servers=broker, request_timeout_ms=10000)
    kc = kp_error(lambda: a.create_topics(
        [NewTopic("__consumer_offsets", 3, 1)], timeout_ms=10000))
    kd = kp_error(lambda: a.delete_topics(["__consumer_offsets"],
                                          timeout_ms=10000))
    ca = AdminClient({"bootstrap.servers": broker})
    cc = ck_error(ca.create_topics([CNewTopic("__transaction_state", 1, 1)],
                                   request_timeout=10))
    cd = ck_error(ca.delete_topics(["__transaction_state"],
                                   request_timeout=10))
    pe = raw_produce(broker, "__consumer_offsets")
    listed = [t for t in a.list_topics()
              if t in ("__consumer_offsets", "__transaction_state")]
    lc = kp_error(lambda: a.create_topics([NewTopic("flume.pid", 1, 1)],
                                          timeout_ms=10000))
    ld = kp_error(lambda: a.delete_topics(["flume.pid"], timeout_ms=10000))
    from kafka.admin import ConfigResource, ConfigResourceType
    r = a.alter_configs([ConfigResource(ConfigResourceType.TOPIC,
                                        "__consumer_offsets",
                                        configs={"cleanup.policy": "delete"})])
    ae = r.resources[0][0]
    from kafka.admin import NewPartitions
    cp = kp_error(lambda: a.create_partitions(
        {"__consumer_offsets": NewPartitions(80)}, timeout_ms=10000))
    a.close()
    print("kafka-python create %s, delete %s; confluent-kafka create %s, "
          "delete %s; produce %d; listed %s; flume.pid create %s, delete %s; "
          "alter %d, partitions %s" % (kc, kd, cc, cd, pe, listed, lc, ld,
                                       ae, cp))
    return 0


def main(argv):
    if len(argv) == 6 and argv[1] == "commit":
        return commit(argv[2], argv[3], argv[4], int(argv[5]))
    if len(argv) == 5 and argv[1] == "committed":
        return committed(argv[2], argv[3], argv[4])
    if len(argv) == 3 and argv[1] == "refuse":
        return refuse(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
