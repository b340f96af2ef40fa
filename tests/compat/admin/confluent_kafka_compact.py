#!/usr/bin/python3
"""confluent-kafka (librdkafka) against a compacted topic on a running
broker: tests/compat/admin/confluent_kafka_compact.py BROKER PREFIX

Creates PREFIX-compact (cleanup.policy=compact, 16 KiB segments,
min.cleanable.dirty.ratio=0.01) with AdminClient, produces 5 versions of
200 keys (the last version of 2 keys a tombstone), then filler that
closes the data's last segment, and waits (up to 60 s: the cleaner
sleeps cleaner_backoff_ms between looks) until a consumer from the
beginning reads each live key exactly once with its latest value, in
offset order.  A record without a key is refused with INVALID_RECORD.
Prints "ok NAME" or "FAIL NAME: why" per check; exits 0 only if all
passed.
"""

import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

BROKER, PREFIX = sys.argv[1], sys.argv[2]
TOPIC = PREFIX + "-compact"
KEYS, VERSIONS = 200, 5
failed = 0


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok " + name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def latest(k):
    if k % 100 == 7:
        return None
    return ("v-%03d-%d" % (k, VERSIONS - 1)).encode()


def read_all():
    """{key: [values]} and whether offsets ascended, from the beginning."""
    c = Consumer({"bootstrap.servers": BROKER, "group.id": PREFIX + "-g",
                  "enable.auto.commit": False})
    lo, hi = c.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=10)
    c.assign([TopicPartition(TOPIC, 0, 0)])
    seen, last, ordered = {}, -1, True
    deadline = time.time() + 20
    while last < hi - 1 and time.time() < deadline:
        m = c.poll(0.5)
        if m is None or m.error():
            continue
        if m.offset() <= last:
            ordered = False
        last = m.offset()
        seen.setdefault(m.key().decode(), []).append(m.value())
    c.close()
    return seen, ordered


admin = AdminClient({"bootstrap.servers": BROKER})
fs = admin.create_topics([NewTopic(TOPIC, 1, 1, config={
    "cleanup.policy": "compact", "segment.bytes": "16384",
    "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "1000"})],
    request_timeout=15)
try:
    fs[TOPIC].result()
    check("create compacted topic", True)
except Exception as e:
    check("create compacted topic", False, str(e))
    sys.exit(1)

errors = []
p = Producer({"bootstrap.servers": BROKER, "linger.ms": 5,
              "message.send.max.retries": 0})
for v in range(VERSIONS):
    for k in range(KEYS):
        val = latest(k) if v == VERSIONS - 1 else ("v-%03d-%d" % (k, v)).encode()
        p.produce(TOPIC, key=("key%03d" % k).encode(), value=val, partition=0,
                  on_delivery=lambda e, m: e and errors.append(e))
p.flush(30)
# Filler in flushed runs: the writer rolls the data's last segment.
for run in range(5):
    for i in range(100):
        p.produce(TOPIC, key=("fill-%d-%d" % (run, i)).encode(),
                  value=b"f" * 100, partition=0)
    p.flush(30)
check("produce keyed records", not errors, str(errors[:1]))

keyless = []
p.produce(TOPIC, value=b"no key", partition=0,
          on_delivery=lambda e, m: keyless.append(e))
p.flush(30)
check("keyless record refused with INVALID_RECORD",
      len(keyless) == 1 and keyless[0] is not None and
      keyless[0].code() == KafkaError.INVALID_RECORD, str(keyless))

deadline = time.time() + 60
good = False
while time.time() < deadline and not good:
    seen, ordered = read_all()
    good = ordered and all(
        (seen.get("key%03d" % k) == [latest(k)]) if latest(k) is not None
        else ("key%03d" % k) not in seen for k in range(KEYS))
    if not good:
        time.sleep(1)   # the cleaner works on its own schedule
check("each live key once with its latest value, tombstones gone", good,
      "still %d records of data keys" % sum(
          len(v) for k, v in seen.items() if k.startswith("key")))
sys.exit(1 if failed else 0)
