#!/usr/bin/python3
"""kafka-python scenario for tests/compat/run.

    kafka_python_scenario.py caps
    kafka_python_scenario.py produce BROKER TOPIC FIRST COUNT CODEC IDEM
    kafka_python_scenario.py member BROKER TOPIC GROUP

The commands and their output lines are those of tests/compat/run's
docstring.  kafka-python 2.0.2 has no idempotent producer: IDEM must
be 0 and caps says "idempotence no"."""

import signal
import sys

import kafka
from kafka import ConsumerRebalanceListener, KafkaConsumer, KafkaProducer

NAME = "kafka-python"
stop = False


def caps():
    print("version %s" % kafka.__version__)
    print("codecs gzip snappy lz4 zstd")
    print("idempotence no")
    # kafka-python takes the broker for Kafka 2.1 (zstd's minimum) only
    # when it advertises Fetch v10; it then produces zstd with Produce v7.
    print("needs zstd Fetch 10 Produce 7")
    return 0


def produce(broker, topic, first, count, codec, idem):
    if idem:
        print("kafka-python has no idempotent producer")
        return 2
    p = KafkaProducer(bootstrap_servers=broker, acks="all", linger_ms=5,
                      compression_type=None if codec == "none" else codec)
    hdrs = [("client", NAME.encode()), ("first", str(first).encode())]
    futs = [p.send(topic, key=b"k%06d" % i, value=("v%06d-%s" % (i, NAME)).encode(),
                   headers=hdrs)
            for i in range(first, first + count)]
    p.flush(30)
    for f in futs:
        f.get(timeout=10)       # raises on a failed delivery
    p.close()
    print("produced %d" % count)
    return 0


def on_term(signum, frame):
    global stop
    stop = True


class Listener(ConsumerRebalanceListener):
    def __init__(self):
        self.consumer = None

    def on_partitions_revoked(self, revoked):
        if revoked:
            self.consumer.commit()
        print("revoked", flush=True)

    def on_partitions_assigned(self, assigned):
        print("assigned %s" % (",".join(str(t.partition) for t in
                                        sorted(assigned)) or "-"), flush=True)


def member(broker, topic, group):
    signal.signal(signal.SIGTERM, on_term)
    c = KafkaConsumer(bootstrap_servers=broker, group_id=group,
                      auto_offset_reset="earliest", enable_auto_commit=False,
                      session_timeout_ms=10000, heartbeat_interval_ms=500)
    lst = Listener()
    lst.consumer = c
    c.subscribe([topic], listener=lst)
    while not stop:
        batches = c.poll(timeout_ms=200)
        got = False
        for tp, msgs in batches.items():
            for m in msgs:
                h = ",".join("%s=%s" % (k, v.decode()) for k, v in m.headers)
                print("rec %d %d %s %s %s" % (m.partition, m.offset, m.key.decode(),
                                              m.value.decode(), h))
                got = True
        if got:
            sys.stdout.flush()
            c.commit()
    c.commit()
    c.close()
    print("closed", flush=True)
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "caps":
        return caps()
    if len(argv) == 8 and argv[1] == "produce":
        return produce(argv[2], argv[3], int(argv[4]), int(argv[5]), argv[6],
                       argv[7] == "1")
    if len(argv) == 5 and argv[1] == "member":
        return member(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
