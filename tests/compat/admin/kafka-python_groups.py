#!/usr/bin/python3
"""kafka-python 2.0.2's KafkaAdminClient.delete_consumer_groups
(DeleteGroups v0): an empty group with committed offsets, a group with a
member (NON_EMPTY_GROUP), a group that does not exist.

    kafka-python_groups.py BROKER PREFIX    (tests/compat/admin/run)
"""

import sys
import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic
from kafka.structs import OffsetAndMetadata, TopicPartition

broker, prefix = sys.argv[1], sys.argv[2]
topic, empty, live = prefix + "t", prefix + "empty", prefix + "live"
failed = 0


def check(what, ok, why=""):
    global failed
    print("ok %s" % what if ok else "FAIL %s: %s" % (what, why))
    failed += 0 if ok else 1


def codes(res):
    return [(g, getattr(e, "errno", e)) for g, e in res]


admin = KafkaAdminClient(bootstrap_servers=broker, client_id="admin-compat",
                         request_timeout_ms=10000)
admin.create_topics([NewTopic(topic, 1, 1)], timeout_ms=10000)
producer = KafkaProducer(bootstrap_servers=broker)
producer.send(topic, b"x", partition=0).get(timeout=10)
producer.close()

# An empty group: a commit outside any generation (assign, not subscribe).
tp = TopicPartition(topic, 0)
c = KafkaConsumer(bootstrap_servers=broker, group_id=empty,
                  enable_auto_commit=False)
c.assign([tp])
c.commit({tp: OffsetAndMetadata(1, "")})
c.close(autocommit=False)
before = admin.list_consumer_group_offsets(empty)
check("committed", before.get(tp) is not None and before[tp].offset == 1,
      before)
res = admin.delete_consumer_groups([empty])
check("delete_consumer_groups", codes(res) == [(empty, 0)], res)
after = admin.list_consumer_group_offsets(empty)
check("delete_consumer_groups offsets gone",
      after.get(tp) is None or after[tp].offset == -1, after)
res = admin.delete_consumer_groups([prefix + "nosuch"])
check("delete_consumer_groups unknown",
      codes(res) == [(prefix + "nosuch", 69)], res)

# A member that joined: NON_EMPTY_GROUP, kept.
m = KafkaConsumer(topic, bootstrap_servers=broker, group_id=live,
                  enable_auto_commit=False, auto_offset_reset="earliest")
deadline = time.time() + 20
while not m.assignment() and time.time() < deadline:
    m.poll(timeout_ms=100)
check("member joined", m.assignment() == {tp}, m.assignment())
res = admin.delete_consumer_groups([live])
check("delete_consumer_groups live", codes(res) == [(live, 68)], res)
m.close(autocommit=False)
res = admin.delete_consumer_groups([live])
check("delete_consumer_groups after it left", codes(res) == [(live, 0)], res)
admin.close()
sys.exit(1 if failed else 0)
