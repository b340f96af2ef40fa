#!/usr/bin/python3
"""Kafka clients as a consume-only user (SCRAM-SHA-256 over TLS) against
Flume's kafka_listen_tls, for tests/integration/test_sasl.c and
test_auth_groups.c.  Each command prints one line the test compares
exactly.  CAFILE "-" means no TLS (SASL_PLAINTEXT to kafka_listen).

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
    kafka_authz.py guard BROKER CAFILE OWNER OWNER_PW INTRUDER INTRUDER_PW
                   TOPIC OTHER GROUP
        OWNER produces k1,k2 to TOPIC and reads them in GROUP
        (confluent-kafka); INTRUDER, who may read OTHER, tries to join
        GROUP subscribed to OTHER (confluent-kafka), to describe and
        list it, to make OWNER's member leave and to join it with a raw
        JoinGroup (kafka-python); then OWNER produces k3 and reads it:
        "guard owner k1,k2 join ERRORNAME describe ERRORCLASS|ok
        listed yes|no leave CODE rawjoin CODE owner k3 assigned N
        same member yes|no".

Every wait is bounded (about 20 seconds)."""

import struct
import sys
import time


def kp_opts(broker, ca, user, password):
    if ca == "-":
        return dict(bootstrap_servers=broker,
                    security_protocol="SASL_PLAINTEXT",
                    sasl_mechanism="SCRAM-SHA-256", sasl_plain_username=user,
                    sasl_plain_password=password)
    return dict(bootstrap_servers=broker, security_protocol="SASL_SSL",
                ssl_cafile=ca, ssl_check_hostname=True,
                sasl_mechanism="SCRAM-SHA-256", sasl_plain_username=user,
                sasl_plain_password=password)


def ck_conf(broker, ca, user, password):
    if ca == "-":
        return {"bootstrap.servers": broker,
                "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanisms": "SCRAM-SHA-256",
                "sasl.username": user, "sasl.password": password}
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


def ck_read(c, n, others=()):
    """Values of the next n messages of consumer c (20 s at most); the
    consumers in others are polled meanwhile and must stay silent."""
    got = []
    end = time.monotonic() + 20
    while time.monotonic() < end and len(got) < n:
        m = c.poll(0.2)
        for o in others:
            o.poll(0)
        if m is None:
            continue
        if m.error():
            got.append(m.error().name())
            break
        got.append(m.value().decode())
    return ",".join(got)


def kp_call(admin, request):
    """Send request to the broker (node 0) through a kafka-python admin
    client; the answer's error code, or the exception's class."""
    try:
        f = admin._send_request_to_node(0, request)
        admin._wait_for_futures([f])
        return str(f.value.error_code)
    except Exception as e:
        return type(e).__name__


def guard(broker, ca, owner, opw, intruder, ipw, topic, other, group):
    from confluent_kafka import Consumer, Producer
    from kafka import KafkaAdminClient
    from kafka.protocol.group import JoinGroupRequest, LeaveGroupRequest
    oconf = ck_conf(broker, ca, owner, opw)
    p = Producer(dict(oconf, **{"message.timeout.ms": 10000}))
    for v in (b"k1", b"k2"):
        p.produce(topic, value=v, partition=0)
    p.flush(15)
    assigned = []
    oc = Consumer(dict(oconf, **{"group.id": group,
                                 "auto.offset.reset": "earliest",
                                 "enable.auto.commit": False}))
    oc.subscribe([topic], on_assign=lambda c, ps: assigned.append(len(ps)))
    res = ["guard owner", ck_read(oc, 2)]
    # confluent-kafka 1.7 does not tell its member id: the broker does.
    oa = KafkaAdminClient(request_timeout_ms=15000,
                          **kp_opts(broker, ca, owner, opw))

    def owner_member():
        ms = oa.describe_consumer_groups([group])[0].members
        return ms[0].member_id if len(ms) == 1 else None
    member = owner_member()

    ic = Consumer(dict(ck_conf(broker, ca, intruder, ipw),
                       **{"group.id": group, "auto.offset.reset": "earliest",
                          "enable.auto.commit": False}))
    ic.subscribe([other])
    res += ["join", ck_read(ic, 1, (oc,)) or "none"]
    ic.close()

    a = KafkaAdminClient(request_timeout_ms=15000,
                         **kp_opts(broker, ca, intruder, ipw))
    try:
        a.describe_consumer_groups([group], group_coordinator_id=0)
        res += ["describe", "ok"]
    except Exception as e:
        res += ["describe", type(e).__name__]
    listed = any(g[0] == group for g in a.list_consumer_groups())
    res += ["listed", "yes" if listed else "no"]
    res += ["leave", kp_call(a, LeaveGroupRequest[0](group, member or ""))]
    # The consumer protocol's metadata: version, [topics], user data.
    meta = (struct.pack(">hih", 0, 1, len(other)) + other.encode() +
            struct.pack(">i", -1))
    res += ["rawjoin", kp_call(a, JoinGroupRequest[0](
        group, 10000, "", "consumer", [("range", meta)]))]
    a.close()

    p.produce(topic, value=b"k3", partition=0)
    p.flush(15)
    res += ["owner", ck_read(oc, 1)]
    res += ["assigned", str(len(assigned))]
    res += ["same member", "yes" if member is not None and
            owner_member() == member else "no"]
    oa.close()
    oc.close()
    return " ".join(res)


def main():
    mode = sys.argv[1]
    args = sys.argv[2:]
    fn = {"kp-produce": kp_produce, "ck-produce": ck_produce,
          "kp-group": kp_group, "ck-group": ck_group, "guard": guard}[mode]
    res = fn(*args)
    print(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
