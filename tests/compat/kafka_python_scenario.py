#!/usr/bin/python3
"""kafka-python scenario for tests/compat/run.

    kafka_python_scenario.py caps
    kafka_python_scenario.py produce BROKER TOPIC FIRST COUNT CODEC IDEM
    kafka_python_scenario.py member BROKER TOPIC GROUP

The commands and their output lines are those of tests/compat/run's
docstring.  kafka-python 2.0.2 has no idempotent producer: IDEM must
be 0 and caps says "idempotence no".

A leading "--api-version X.Y[.Z]" pins the client's api_version (it then
asks the broker nothing and sends what that Kafka version implies) and
names it "kafka-python-X.Y[.Z]" in the records.  As for Kafka 0.10 it
writes magic-1 message sets (Produce v2, no headers, no zstd), reads
with Fetch v2 and ListOffsets v0 and joins with JoinGroup v0."""

import signal
import sys

import kafka
from kafka import ConsumerRebalanceListener, KafkaConsumer, KafkaProducer

NAME = "kafka-python"
API_VERSION = None      # None: negotiated with the broker
stop = False


def client_args():
    return {} if API_VERSION is None else {"api_version": API_VERSION}


def caps():
    print("version %s" % kafka.__version__)
    if API_VERSION is not None and API_VERSION < (0, 11):
        # Message sets of magic 0/1: no headers, and no zstd (Kafka 2.1).
        print("codecs gzip snappy lz4")
        print("headers no")
    elif API_VERSION is not None and API_VERSION < (2, 1):
        print("codecs gzip snappy lz4")
    else:
        print("codecs gzip snappy lz4 zstd")
    print("idempotence no")
    if API_VERSION is None:
        # kafka-python takes the broker for Kafka 2.1 (zstd's minimum)
        # only when it advertises Fetch v10; it then produces zstd with
        # Produce v7.
        print("needs zstd Fetch 10 Produce 7")
    return 0


def produce(broker, topic, first, count, codec, idem):
    if idem:
        print("kafka-python has no idempotent producer")
        return 2
    p = KafkaProducer(bootstrap_servers=broker, acks="all", linger_ms=5,
                      compression_type=None if codec == "none" else codec,
                      **client_args())
    hdrs = [("client", NAME.encode()), ("first", str(first).encode())]
    if API_VERSION is not None and API_VERSION < (0, 11):
        hdrs = None     # magic 0/1 have no headers
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
                      session_timeout_ms=10000, heartbeat_interval_ms=500,
                      **client_args())
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
    global NAME, API_VERSION
    if len(argv) >= 3 and argv[1] == "--api-version":
        API_VERSION = tuple(int(x) for x in argv[2].split("."))
        NAME = "kafka-python-" + argv[2]
        argv = argv[:1] + argv[3:]
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
