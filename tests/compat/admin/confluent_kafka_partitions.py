#!/usr/bin/python3
"""confluent-kafka (librdkafka) AdminClient.create_partitions against a
running broker: tests/compat/admin/confluent_kafka_partitions.py BROKER PREFIX

Grows PREFIX-grow from 3 to 6 partitions under a consumer group member
that joined before, checks the count in Metadata, that a record produced
to partition 5 reads back through the member, that the member ends up
assigned all 6 partitions, that validate_only changes nothing
and that a decrease, the same count and an unknown topic get Kafka's
errors.  Prints "ok NAME" or "FAIL NAME: why" per check; exits 0 only if
all passed.
"""

import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

BROKER, PREFIX = sys.argv[1], sys.argv[2]
TOPIC = PREFIX + "-grow"
failed = 0


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok " + name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def grow(admin, topic, count, validate=False):
    """None on success, else the KafkaError code."""
    fs = admin.create_partitions([NewPartitions(topic, count)],
                                 request_timeout=15, validate_only=validate)
    try:
        fs[topic].result()
        return None
    except Exception as e:  # KafkaException carrying a KafkaError
        err = e.args[0] if e.args else None
        return err.code() if hasattr(err, "code") else str(e)


def partitions(admin, topic):
    md = admin.list_topics(topic, timeout=10)
    t = md.topics.get(topic)
    return None if t is None or t.error is not None else len(t.partitions)


admin = AdminClient({"bootstrap.servers": BROKER})
fs = admin.create_topics([NewTopic(TOPIC, 3, 1)], request_timeout=15)
fs[TOPIC].result()
check("created with 3", partitions(admin, TOPIC) == 3)

# A group member from before the grow: librdkafka sees the new count in
# its metadata refresh and rejoins (its leader assigns the new partitions).
c = Consumer({"bootstrap.servers": BROKER, "group.id": PREFIX + "-g",
              "auto.offset.reset": "earliest",
              "topic.metadata.refresh.interval.ms": 1000})
c.subscribe([TOPIC])
assigned = set()
deadline = time.time() + 30
while time.time() < deadline and assigned != set(range(3)):
    c.poll(0.2)
    assigned = {tp.partition for tp in c.assignment()}
check("group member assigned the 3", assigned == set(range(3)),
      sorted(assigned))

err = grow(admin, TOPIC, 5, validate=True)
check("validate_only answers ok", err is None, err)
check("validate_only changes nothing", partitions(admin, TOPIC) == 3,
      partitions(admin, TOPIC))

err = grow(admin, TOPIC, 6)
check("create_partitions 3 -> 6", err is None, err)
check("metadata says 6", partitions(admin, TOPIC) == 6,
      partitions(admin, TOPIC))

err = grow(admin, TOPIC, 6)
check("same count is INVALID_PARTITIONS",
      err == KafkaError.INVALID_PARTITIONS, err)
err = grow(admin, TOPIC, 2)
check("decrease is INVALID_PARTITIONS",
      err == KafkaError.INVALID_PARTITIONS, err)
err = grow(admin, PREFIX + "-missing", 4)
check("unknown topic is UNKNOWN_TOPIC_OR_PART",
      err == KafkaError.UNKNOWN_TOPIC_OR_PART, err)
check("still 6 after the refusals", partitions(admin, TOPIC) == 6)

p = Producer({"bootstrap.servers": BROKER, "acks": "all"})
acked = []
p.produce(TOPIC, value=b"in-new-partition", partition=5,
          on_delivery=lambda e, m: acked.append((e, m.partition(),
                                                 m.offset())))
p.flush(15)
check("produce to partition 5", acked and acked[0][0] is None and
      acked[0][1] == 5 and acked[0][2] == 0, acked)

got = None
deadline = time.time() + 30
while time.time() < deadline and (got is None or assigned != set(range(6))):
    m = c.poll(0.2)
    assigned = {tp.partition for tp in c.assignment()}
    if m is not None and m.error() is None:
        got = (m.partition(), m.offset(), m.value())
check("the member is assigned all 6 after the grow",
      assigned == set(range(6)),
      sorted(assigned))
check("record in partition 5 read back",
      got == (5, 0, b"in-new-partition"), got)
c.close()
sys.exit(1 if failed else 0)
