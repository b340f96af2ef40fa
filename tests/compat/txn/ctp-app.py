#!/usr/bin/python3
"""A consume-transform-produce application (tests/compat/txn/run's ctp).

    ctp-app.py BROKER INPUT OUTPUT GROUP TXID [UNTIL]

Reads INPUT in GROUP (static member "ctp", read_committed, no auto
commit) and, for each poll of up to 20 records, writes "out:" + each
value to OUTPUT (same key and partition) in one transaction of TXID
together with the consumer's positions (send_offsets_to_transaction),
and commits; prints "committed N" after each commit.  With UNTIL it
exits 0 once the group's committed offsets add up to UNTIL; without, it
runs until killed.  Any error exits 3: the next instance fences this
one (init_transactions) and resumes from the committed offsets.

With CTP_AT_LEAST_ONCE=1 in the environment it does the same without a
transaction (produce, flush, then the consumer commits the positions):
what the crash run must catch (duplicates), to show that it can fail."""

import os
import sys

from confluent_kafka import Consumer, KafkaException, Producer


def main(argv):
    if len(argv) not in (6, 7):
        print(__doc__, file=sys.stderr)
        return 2
    broker, src, dst, group, txid = argv[1:6]
    until = int(argv[6]) if len(argv) == 7 else None
    plain = os.environ.get("CTP_AT_LEAST_ONCE") == "1"
    conf = {"bootstrap.servers": broker, "linger.ms": 5}
    if not plain:
        conf["transactional.id"] = txid
    p = Producer(conf)
    c = Consumer({"bootstrap.servers": broker, "group.id": group,
                  "group.instance.id": "ctp",
                  "isolation.level": "read_committed",
                  "enable.auto.commit": False,
                  "auto.offset.reset": "earliest"})
    try:
        if not plain:
            p.init_transactions(60)
        c.subscribe([src])
        while True:
            msgs = [m for m in c.consume(num_messages=20, timeout=0.5)
                    if m.error() is None]
            if not msgs:
                if until is not None and c.assignment():
                    got = c.committed(c.assignment(), timeout=10)
                    if sum(tp.offset for tp in got if tp.offset >= 0) \
                            >= until:
                        print("done", flush=True)
                        return 0
                continue
            if not plain:
                p.begin_transaction()
            for m in msgs:
                p.produce(dst, b"out:" + m.value(), key=m.key(),
                          partition=m.partition())
            pos = [tp for tp in c.position(c.assignment()) if tp.offset >= 0]
            if plain:
                if p.flush(60) != 0:
                    raise KafkaException("records left unsent")
                c.commit(offsets=pos, asynchronous=False)
            else:
                p.send_offsets_to_transaction(
                    pos, c.consumer_group_metadata(), 30)
                p.commit_transaction(60)
            print("committed %d" % len(msgs), flush=True)
    except KafkaException as e:
        print("error %s" % e, flush=True)
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
