#!/usr/bin/python3
"""Kafka clients over TLS against Flume's kafka_listen_tls, for
tests/integration/test_tls.c.  Each command prints one result line the
test compares exactly, and exits 0 only when everything matched.

    kafka_tls.py kp BROKER CAFILE TOPIC [USER PASSWORD MECHANISM]
        kafka-python: 3 values produced with acks=all, read back from
        the beginning of partition 0; prints "kp ok v0,v1,v2".
    kafka_tls.py ck BROKER CAFILE TOPIC [USER PASSWORD MECHANISM]
        confluent-kafka (librdkafka): the same; prints "ck ok v0,v1,v2".

The broker certificate is verified against CAFILE, host name (the IP
address) included.  With USER, the connection is SASL_SSL with that
mechanism (SCRAM-SHA-256, SCRAM-SHA-512 or PLAIN)."""

import sys


def kp(broker, ca, topic, sasl):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    opts = dict(bootstrap_servers=broker, security_protocol="SSL",
                ssl_cafile=ca, ssl_check_hostname=True)
    if sasl:
        opts.update(security_protocol="SASL_SSL", sasl_mechanism=sasl[2],
                    sasl_plain_username=sasl[0], sasl_plain_password=sasl[1])
    p = KafkaProducer(acks="all", request_timeout_ms=10000, **opts)
    for i in range(3):
        p.send(topic, value=b"v%d" % i, partition=0).get(timeout=10)
    p.close()
    c = KafkaConsumer(consumer_timeout_ms=5000, **opts)
    tp = TopicPartition(topic, 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    got = [m.value.decode() for m in c]
    c.close()
    return "kp ok " + ",".join(got)


def ck(broker, ca, topic, sasl):
    from confluent_kafka import Consumer, Producer, TopicPartition
    conf = {"bootstrap.servers": broker, "security.protocol": "SSL",
            "ssl.ca.location": ca,
            "ssl.endpoint.identification.algorithm": "https"}
    if sasl:
        conf.update({"security.protocol": "SASL_SSL",
                     "sasl.mechanisms": sasl[2], "sasl.username": sasl[0],
                     "sasl.password": sasl[1]})
    p = Producer(dict(conf, acks="all"))
    errs = []
    for i in range(3):
        p.produce(topic, value=b"v%d" % i, partition=0,
                  on_delivery=lambda e, m: e and errs.append(e))
    if p.flush(15) != 0 or errs:
        return "ck produce failed %s" % errs
    c = Consumer(dict(conf, **{"group.id": "tls-test",
                               "enable.auto.commit": False}))
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    for _ in range(100):
        if len(got) == 3:
            break
        m = c.poll(0.2)
        if m is None:
            continue
        if m.error():
            return "ck consume failed %s" % m.error()
        got.append(m.value().decode())
    c.close()
    return "ck ok " + ",".join(got)


def main():
    mode, broker, ca, topic = sys.argv[1:5]
    sasl = sys.argv[5:8] if len(sys.argv) >= 8 else None
    res = {"kp": kp, "ck": ck}[mode](broker, ca, topic, sasl)
    print(res)
    return 0 if " ok " in res else 1


if __name__ == "__main__":
    sys.exit(main())
