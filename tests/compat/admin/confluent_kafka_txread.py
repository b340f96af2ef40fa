#!/usr/bin/python3
"""confluent-kafka (librdkafka) transactions read back on a running broker:
tests/compat/admin/confluent_kafka_txread.py BROKER PREFIX

A transactional producer writes 1,000 records to PREFIX-txread (two
partitions) in 10 transactions of 100 and commits them, and 1,000 more
in 10 transactions it aborts, interleaved.  A read_committed consumer
gets exactly the 1,000 committed (each once, in order per partition, no
control record), a read_uncommitted one all 2,000; the last stable
offset (get_watermark_offsets of a read_committed consumer) is the high
watermark once nothing is open.  Then a transaction left open holds the
LSO of its partition at its first offset: read_committed consumers get
nothing of it until it commits.  Prints "ok NAME" or "FAIL NAME: why"
per check; exits 0 only if all passed.
"""

import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

BROKER, PREFIX = sys.argv[1], sys.argv[2]
TOPIC = PREFIX + "-txread"
failed = 0


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok " + name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def read(isolation, want, idle_s=3.0):
    """Values read from the beginning of both partitions (up to want, then
    idle_s more with nothing new), and whether offsets ascended."""
    c = Consumer({"bootstrap.servers": BROKER, "group.id": PREFIX + "-" +
                  isolation, "enable.auto.commit": False,
                  "isolation.level": isolation})
    c.assign([TopicPartition(TOPIC, p, 0) for p in (0, 1)])
    got, last, ordered = [], {}, True
    quiet_since = time.time()
    deadline = time.time() + 60
    while time.time() < deadline:
        m = c.poll(0.2)
        if m is None or m.error():
            if len(got) >= want and time.time() - quiet_since > idle_s:
                break
            continue
        quiet_since = time.time()
        if m.offset() <= last.get(m.partition(), -1):
            ordered = False
        last[m.partition()] = m.offset()
        got.append(m.value())
    c.close()
    return got, ordered


def lso(partition):
    c = Consumer({"bootstrap.servers": BROKER, "group.id": PREFIX + "-w",
                  "isolation.level": "read_committed"})
    lo, hi = c.get_watermark_offsets(TopicPartition(TOPIC, partition),
                                     timeout=10, cached=False)
    c.close()
    return hi


admin = AdminClient({"bootstrap.servers": BROKER})
fs = admin.create_topics([NewTopic(TOPIC, 2, 1)], request_timeout=15)
try:
    fs[TOPIC].result()
    check("create topic", True)
except Exception as e:
    check("create topic", False, str(e))
    sys.exit(1)

p = Producer({"bootstrap.servers": BROKER, "transactional.id":
              PREFIX + "-tid", "linger.ms": 5})
try:
    p.init_transactions(30)
    committed, aborted = [], []
    for t in range(20):
        p.begin_transaction()
        tag = "c" if t % 2 == 0 else "a"
        for i in range(100):
            v = ("%s-%02d-%03d" % (tag, t, i)).encode()
            p.produce(TOPIC, v, partition=i % 2)
            (committed if tag == "c" else aborted).append(v)
        if tag == "c":
            p.commit_transaction(30)
        else:
            p.flush(30)
            p.abort_transaction(30)
    check("produce 10 committed and 10 aborted transactions", True)
except Exception as e:
    check("produce 10 committed and 10 aborted transactions", False, str(e))
    sys.exit(1)

got, ordered = read("read_committed", 1000)
check("read_committed gets exactly the 1,000 committed",
      sorted(got) == sorted(committed) and len(got) == 1000,
      "%d records, %d committed ones, %d aborted ones" % (
          len(got), len(set(got) & set(committed)),
          len(set(got) & set(aborted))))
check("read_committed in offset order", ordered)
got, ordered = read("read_uncommitted", 2000)
check("read_uncommitted gets all 2,000",
      sorted(got) == sorted(committed + aborted), "%d records" % len(got))
check("no control record reaches either",
      all(v.startswith(b"c-") or v.startswith(b"a-") for v in got))

# A transaction left open: the LSO stays at its first offset.
c = Consumer({"bootstrap.servers": BROKER, "group.id": PREFIX + "-h"})
hw0 = c.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=10,
                              cached=False)[1]
c.close()
check("LSO is the high watermark with nothing open", lso(0) == hw0,
      "LSO %d, high watermark %d" % (lso(0), hw0))
p.begin_transaction()
for i in range(10):
    p.produce(TOPIC, ("o-%03d" % i).encode(), partition=0)
p.flush(30)
deadline = time.time() + 10
while lso(0) != hw0 and time.time() < deadline:
    time.sleep(0.1)
check("an open transaction holds the LSO at its first offset",
      lso(0) == hw0, "LSO %d, want %d" % (lso(0), hw0))
got, _ = read("read_committed", 1000, idle_s=2.0)
check("read_committed gets none of an open transaction",
      len(got) == 1000 and not any(v.startswith(b"o-") for v in got),
      "%d records" % len(got))
p.commit_transaction(30)
deadline = time.time() + 10
while lso(0) != hw0 + 11 and time.time() < deadline:
    time.sleep(0.1)
check("its commit moves the LSO past its marker", lso(0) == hw0 + 11,
      "LSO %d, want %d" % (lso(0), hw0 + 11))
got, _ = read("read_committed", 1010)
check("read_committed gets it once committed",
      len(got) == 1010 and sum(v.startswith(b"o-") for v in got) == 10,
      "%d records" % len(got))
sys.exit(1 if failed else 0)
