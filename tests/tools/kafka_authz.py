#!/usr/bin/python3
"""Kafka clients as a consume-only user (SCRAM-SHA-256 over TLS) against
Flume's kafka_listen_tls, for tests/integration/test_sasl.c.  Each
command prints one line the test compares exactly.

    kafka_authz.py kp-produce BROKER CAFILE USER PASSWORD TOPIC
    kafka_authz.py ck-produce BROKER CAFILE USER PASSWORD TOPIC
        one record; prints "kp produce ok" / "ck produce ok", or the
        error the client reports: "kp produce ERRORCLASS",
        "ck produce ERRORNAME".
    kafka_authz.py kp-group BROKER CAFILE USER PASSWORD TOPIC GROUP
    kafka_authz.py ck-group BROKER CAFILE USER PASSWORD TOPIC GROUP
        subscribe GROUP to TOPIC and read what is there: prints
        "kp group ok V1,V2,..." / "ck group ok ...", or the first
        error the client reports: "kp group ERRORCLASS",
        "ck group ERRORNAME".

Every wait is bounded (about 20 seconds)."""

import sys
import time


def kp_opts(broker, ca, user, password):
    return dict(bootstrap_servers=broker, security_protocol="SASL_SSL",
                ssl_cafile=ca, ssl_check_hostname=True,
                sasl_mechanism="SCRAM-SHA-256", sasl_plain_username=user,
                sasl_plain_password=password)


def ck_conf(broker, ca, user, password):
    return {"bootstrap.servers": broker, "security.protocol": "SASL_SSL",
            "ssl.ca.location": ca, "sasl.mechanisms": "SCRAM-SHA-256",
            "sasl.username": user, "sasl.password": password}


def kp_produce(broker, ca, user, password, topic):
    from kafka import KafkaProducer
    p = KafkaProducer(acks=1, request_timeout_ms=10000, max_block_ms=10000,
                      retries=0, **kp_opts(broker, ca, user, password))
    try:
        p.send(topic, value=b"x", partition=0).get(timeout=15)
        res = "kp produce ok"
    except Exception as e:
        res = "kp produce " + type(e).__name__
    p.close(timeout=5)
    return res


def ck_produce(broker, ca, user, password, topic):
    from confluent_kafka import Producer
    errs = []
    p = Producer(dict(ck_conf(broker, ca, user, password),
                      **{"message.timeout.ms": 10000}))
    p.produce(topic, value=b"x", partition=0,
              on_delivery=lambda e, m: errs.append(e))
    p.flush(15)
    if not errs:
        return "ck produce no report"
    return "ck produce " + ("ok" if errs[0] is None else errs[0].name())


def kp_group(broker, ca, user, password, topic, group):
    from kafka import KafkaConsumer
    c = KafkaConsumer(topic, group_id=group, auto_offset_reset="earliest",
                      enable_auto_commit=False,
                      **kp_opts(broker, ca, user, password))
    got = []
    res = None
    end = time.monotonic() + 20
    try:
        while time.monotonic() < end and not got:
            for recs in c.poll(timeout_ms=500).values():
                got.extend(m.value.decode() for m in recs)
        res = "kp group ok " + ",".join(got)
    except Exception as e:
        res = "kp group " + type(e).__name__
    c.close(autocommit=False)
    return res


def ck_group(broker, ca, user, password, topic, group):
    from confluent_kafka import Consumer
    c = Consumer(dict(ck_conf(broker, ca, user, password),
                      **{"group.id": group, "auto.offset.reset": "earliest",
                         "enable.auto.commit": False}))
    c.subscribe([topic])
    got = []
    res = None
    end = time.monotonic() + 20
    while time.monotonic() < end and res is None:
        m = c.poll(0.5)
        if m is None:
            if got:
                res = "ck group ok " + ",".join(got)
            continue
        if m.error():
            res = "ck group " + m.error().name()
            break
        got.append(m.value().decode())
    c.close()
    return res or "ck group timeout " + ",".join(got)


def main():
    mode = sys.argv[1]
    args = sys.argv[2:]
    fn = {"kp-produce": kp_produce, "ck-produce": ck_produce,
          "kp-group": kp_group, "ck-group": ck_group}[mode]
    res = fn(*args)
    print(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
