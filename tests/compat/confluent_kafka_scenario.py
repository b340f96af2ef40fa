#!/usr/bin/python3
"""confluent-kafka (librdkafka) scenario for tests/compat/run.

    confluent_kafka_scenario.py caps
    confluent_kafka_scenario.py produce BROKER TOPIC FIRST COUNT CODEC IDEM
    confluent_kafka_scenario.py member BROKER TOPIC GROUP

The commands and their output lines are those of tests/compat/run's
docstring: records i in [FIRST, FIRST+COUNT) are key "k%06d", value
"v%06d-confluent-kafka", headers client=confluent-kafka and first=FIRST."""

import signal
import sys

from confluent_kafka import Consumer, KafkaException, Producer, libversion, version

NAME = "confluent-kafka"
stop = False


def caps():
    print("version %s (librdkafka %s)" % (version()[0], libversion()[0]))
    print("codecs gzip snappy lz4 zstd")
    print("idempotence yes")
    # librdkafka 2.0.2 (rdkafka_msgset_writer.c) compresses only when the
    # broker's Produce range includes v0, and zstd only with Produce v7 and
    # Fetch v10 too; otherwise it sends the batch uncompressed.
    for codec in ("gzip", "snappy", "lz4"):
        print("needs %s Produce 0" % codec)
    print("needs zstd Produce 0 Produce 7 Fetch 10")
    return 0


def produce(broker, topic, first, count, codec, idem):
    conf = {"bootstrap.servers": broker, "acks": "all",
            "compression.codec": codec, "linger.ms": 5}
    if idem:
        conf["enable.idempotence"] = True
    p = Producer(conf)
    errors = []

    def report(err, msg):
        if err is not None:
            errors.append(str(err))

    hdrs = [("client", NAME.encode()), ("first", str(first).encode())]
    for i in range(first, first + count):
        p.produce(topic, key=b"k%06d" % i, value=("v%06d-%s" % (i, NAME)).encode(),
                  headers=hdrs, on_delivery=report)
        p.poll(0)
    left = p.flush(30)
    if left or errors:
        print("produce failed: %d undelivered, errors %s" % (left, errors[:3]))
        return 1
    print("produced %d" % count)
    return 0


def on_term(signum, frame):
    global stop
    stop = True


def member(broker, topic, group):
    signal.signal(signal.SIGTERM, on_term)
    c = Consumer({"bootstrap.servers": broker, "group.id": group,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False,
                  "session.timeout.ms": 10000, "heartbeat.interval.ms": 500})

    def assigned(consumer, parts):
        print("assigned %s" % (",".join(str(t.partition) for t in parts) or "-"),
              flush=True)

    def revoked(consumer, parts):
        try:
            consumer.commit(asynchronous=False)
        except KafkaException:
            pass        # nothing consumed since the last commit
        print("revoked", flush=True)

    c.subscribe([topic], on_assign=assigned, on_revoke=revoked)
    while not stop:
        msgs = c.consume(num_messages=500, timeout=0.2)
        got = False
        for m in msgs:
            if m.error():
                print("error %s" % m.error(), flush=True)
                continue
            h = ",".join("%s=%s" % (k, v.decode()) for k, v in (m.headers() or []))
            print("rec %d %d %s %s %s" % (m.partition(), m.offset(), m.key().decode(),
                                          m.value().decode(), h))
            got = True
        if got:
            sys.stdout.flush()
            c.commit(asynchronous=False)
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
