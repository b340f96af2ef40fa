#!/usr/bin/python3
"""Kafka consumer groups and the admin client against Flume, for
tests/integration/test_kafka_groups.c.  Each command prints result lines
the test compares exactly, and exits 0 only when it ran to the end.

    kafka_groups.py kp BROKER TOPIC GROUP N
        kafka-python 2.0.2: KafkaConsumer(TOPIC, group_id=GROUP) reads
        until N messages came (then 2 s more, to see there are no
        others), commits and closes.  Prints "read COUNT distinct
        DISTINCT first FIRST last LAST" over the values (vNUMBER,
        ordered by NUMBER).
    kafka_groups.py ck BROKER TOPIC GROUP N
        The same with confluent-kafka (librdkafka) Consumer({'group.id'}).
    kafka_groups.py member BROKER TOPIC GROUP SECONDS [HEARTBEAT_MS]
        A confluent-kafka member (session 10 s, heartbeat every 500 ms
        or HEARTBEAT_MS) that prints "assigned P,P,..." on every
        assignment and "PARTITION VALUE" for every message (flushed),
        consumes for SECONDS or until SIGTERM, then closes (committing
        and leaving the group) and prints "closed".
    kafka_groups.py create BROKER TOPIC
        kafka-python KafkaAdminClient: create TOPIC (3 partitions), see it
        listed with 3 partitions, the errors of a second create, of
        replication factor 3 and of 0 partitions, and a validate_only
        create that creates nothing; list and describe the groups; a
        delete of TOPIC (answered 0) takes it off the list.

Run with the Debian python3-kafka and python3-confluent-kafka packages."""

import sys
import time


def summary(values):
    nums = sorted(int(v[1:]) for v in values)
    distinct = sorted(set(nums))
    return "read %d distinct %d first %s last %s" % (
        len(nums), len(distinct), "v%d" % distinct[0] if distinct else "-",
        "v%d" % distinct[-1] if distinct else "-")


def kp(broker, topic, group, n):
    from kafka import KafkaConsumer
    c = KafkaConsumer(topic, bootstrap_servers=broker, group_id=group,
                      auto_offset_reset="earliest", enable_auto_commit=False,
                      consumer_timeout_ms=2000, session_timeout_ms=10000,
                      request_timeout_ms=30000)
    got = []
    deadline = time.time() + 40
    while time.time() < deadline:
        for m in c:
            got.append(m.value.decode())
        if len(got) >= n:
            for m in c:         # 2 s more: nothing else may come
                got.append(m.value.decode())
            break
    c.commit()
    c.close()
    print(summary(got))
    return 0


def ck(broker, topic, group, n):
    from confluent_kafka import Consumer
    c = Consumer({"bootstrap.servers": broker, "group.id": group,
                  "auto.offset.reset": "earliest",
                  "enable.auto.commit": False})
    c.subscribe([topic])
    got = []
    deadline = time.time() + 40
    quiet_until = None
    while time.time() < deadline:
        m = c.poll(0.2)
        if m is not None and not m.error():
            got.append(m.value().decode())
            continue
        if len(got) >= n:
            if quiet_until is None:
                quiet_until = time.time() + 2
            elif time.time() >= quiet_until:
                break
    if got:
        c.commit(asynchronous=False)
    c.close()
    print(summary(got))
    return 0


def member(broker, topic, group, seconds, heartbeat_ms):
    import signal
    from confluent_kafka import Consumer
    stop = []
    signal.signal(signal.SIGTERM, lambda sig, frame: stop.append(sig))

    def on_assign(consumer, parts):
        print("assigned " + ",".join(str(p.partition) for p in
                                     sorted(parts, key=lambda p: p.partition)),
              flush=True)

    c = Consumer({"bootstrap.servers": broker, "group.id": group,
                  "auto.offset.reset": "earliest",
                  "session.timeout.ms": 10000,
                  "heartbeat.interval.ms": heartbeat_ms})
    c.subscribe([topic], on_assign=on_assign)
    end = time.time() + seconds
    while time.time() < end and not stop:
        m = c.poll(0.2)
        if m is not None and not m.error():
            print("%d %s" % (m.partition(), m.value().decode()), flush=True)
    c.close()
    print("closed", flush=True)
    return 0


def create(broker, topic):
    from kafka import KafkaAdminClient, KafkaConsumer
    from kafka.admin import NewTopic
    from kafka.errors import (InvalidPartitionsError,
                              InvalidReplicationFactorError,
                              TopicAlreadyExistsError)
    a = KafkaAdminClient(bootstrap_servers=broker, request_timeout_ms=10000)
    a.create_topics([NewTopic(topic, 3, 1)])
    print("created", topic in a.list_topics())
    for (what, nt, exc) in (
            ("again", NewTopic(topic, 3, 1), TopicAlreadyExistsError),
            ("rf3", NewTopic(topic + "-rf", 1, 3),
             InvalidReplicationFactorError),
            ("zero", NewTopic(topic + "-zero", 0, 1),
             InvalidPartitionsError)):
        try:
            a.create_topics([nt])
            print(what, "accepted")
        except exc as e:
            print(what, type(e).__name__)
    a.create_topics([NewTopic(topic + "-dry", 2, 1)], validate_only=True)
    print("validate_only", topic + "-dry" in a.list_topics())
    c = KafkaConsumer(bootstrap_servers=broker)
    print("partitions", sorted(c.partitions_for_topic(topic)))
    c.close()
    r = a.delete_topics([topic])
    print("delete", [e[1] for e in r.topic_error_codes],
          topic in a.list_topics())
    groups = sorted(a.list_consumer_groups())
    print("groups", groups)
    for g in a.describe_consumer_groups([gid for (gid, _) in groups]):
        print("describe", g.group, g.state, g.protocol_type, g.protocol,
              len(g.members))
    a.close()
    return 0


def main(argv):
    if len(argv) == 6 and argv[1] in ("kp", "ck"):
        return (kp if argv[1] == "kp" else ck)(argv[2], argv[3], argv[4],
                                               int(argv[5]))
    if len(argv) in (6, 7) and argv[1] == "member":
        return member(argv[2], argv[3], argv[4], float(argv[5]),
                      int(argv[6]) if len(argv) == 7 else 500)
    if len(argv) == 4 and argv[1] == "create":
        return create(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
