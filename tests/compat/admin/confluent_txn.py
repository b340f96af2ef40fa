#!/usr/bin/python3
# Transactions through confluent-kafka (librdkafka): a transactional
# producer commits 1,000 records and aborts 1,000; read_uncommitted sees
# every one (and no control record), read_committed exactly the committed
# ones; send_offsets_to_transaction commits the group's offset with the
# transaction; a second producer with the same transactional.id fences
# the first.  Usage: confluent_txn.py BROKER PREFIX
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

broker, prefix = sys.argv[1], sys.argv[2]
topic = prefix + "-txn"
failed = 0


def check(name, ok, why=""):
    global failed
    if ok:
        print("ok " + name)
    else:
        failed = 1
        print("FAIL %s: %s" % (name, why))


def producer(tid):
    p = Producer({"bootstrap.servers": broker, "transactional.id": tid,
                  "transaction.timeout.ms": 60000})
    p.init_transactions(30)
    return p


def read_all(isolation, group, want, timeout=30):
    c = Consumer({"bootstrap.servers": broker, "group.id": group,
                  "auto.offset.reset": "earliest",
                  "enable.auto.commit": False,
                  "isolation.level": isolation})
    c.subscribe([topic])
    got = []
    end = time.time() + timeout
    while time.time() < end and len(got) < want:
        for m in c.consume(500, 1.0):
            if m.error() is None:
                got.append(m.value().decode())
    # a little longer: nothing more may come
    extra_end = time.time() + 2
    while time.time() < extra_end:
        for m in c.consume(500, 0.5):
            if m.error() is None:
                got.append(m.value().decode())
    c.close()
    return got


try:
    p = producer(prefix + "-tid")
    check("init_transactions", True)
    p.begin_transaction()
    for i in range(1000):
        p.produce(topic, value=("c%d" % i).encode())
    p.commit_transaction(30)
    check("commit 1000", True)
    p.begin_transaction()
    for i in range(1000):
        p.produce(topic, value=("a%d" % i).encode())
    p.flush(30)
    p.abort_transaction(30)
    check("abort 1000", True)

    unc = read_all("read_uncommitted", prefix + "-g1", 2000)
    check("read_uncommitted sees 2000", len(unc) == 2000 and
          sorted(unc) == sorted(["c%d" % i for i in range(1000)] +
                                ["a%d" % i for i in range(1000)]),
          "got %d" % len(unc))
    com = read_all("read_committed", prefix + "-g2", 1000)
    check("read_committed sees the 1000 committed",
          com == ["c%d" % i for i in range(1000)], "got %d" % len(com))

    # send_offsets_to_transaction: the group's offset comes with COMMIT.
    g = prefix + "-eos"
    c = Consumer({"bootstrap.servers": broker, "group.id": g,
                  "auto.offset.reset": "earliest",
                  "enable.auto.commit": False})
    c.subscribe([topic])
    msgs = []
    end = time.time() + 20
    while time.time() < end and not msgs:
        msgs = [m for m in c.consume(10, 1.0) if m.error() is None]
    p.begin_transaction()
    p.produce(topic, value=b"eos")
    last = msgs[-1]
    p.send_offsets_to_transaction(
        [TopicPartition(topic, last.partition(), last.offset() + 1)],
        c.consumer_group_metadata(), 30)
    p.commit_transaction(30)
    got = c.committed([TopicPartition(topic, last.partition())], 10)
    check("send_offsets_to_transaction commits the offset",
          got[0].offset == last.offset() + 1,
          "committed %d, want %d" % (got[0].offset, last.offset() + 1))
    c.close()

    # Fencing: a second producer with the same id.
    p.begin_transaction()
    p.produce(topic, value=b"old")
    p.flush(10)
    p2 = producer(prefix + "-tid")
    check("second init_transactions", True)
    fenced = False
    try:
        p.produce(topic, value=b"old2")
        p.commit_transaction(20)
    except KafkaException as e:
        err = e.args[0]
        fenced = err.fatal() or "fenced" in str(err).lower()
        why = str(err)
    check("first producer fenced", fenced, "no fencing error")
    p2.begin_transaction()
    p2.produce(topic, value=b"new")
    p2.commit_transaction(30)
    check("second producer commits", True)
except KafkaException as e:
    check("transactions", False, str(e))
sys.exit(failed)
