#!/usr/bin/python3
"""confluent-kafka (librdkafka 2.0.2) AdminClient against Flume: topic
settings (issue 27).  SCRIPT BROKER PREFIX; one line per check, exit 0
only if all passed.

create_topics with config, describe_configs (values and sources),
alter_configs (in force at once), a bad value refused naming the key.
"""

import sys

from confluent_kafka.admin import (AdminClient, ConfigResource, NewTopic)
from confluent_kafka import KafkaException

broker, prefix = sys.argv[1], sys.argv[2]
failed = 0


def check(name, ok, why=""):
    global failed
    if ok:
        print("ok " + name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def describe(admin, topic):
    res = ConfigResource(ConfigResource.Type.TOPIC, topic)
    return admin.describe_configs([res])[res].result(timeout=15)


admin = AdminClient({"bootstrap.servers": broker})
topic = prefix + "-cfg"
fs = admin.create_topics([NewTopic(topic, num_partitions=1,
                                   replication_factor=1,
                                   config={"retention.ms": "3600000",
                                           "cleanup.policy": "compact"})],
                         operation_timeout=15)
try:
    fs[topic].result(timeout=15)
    check("create_topics with config", True)
except Exception as e:
    check("create_topics with config", False, repr(e))

# The broker's own: what a topic without its own value has.
bres = ConfigResource(ConfigResource.Type.BROKER, "0")
try:
    b = admin.describe_configs([bres])[bres].result(timeout=15)
    bseg = b["log.segment.bytes"]
    check("describe_configs broker", bseg.is_read_only, repr(bseg))
except Exception as e:
    check("describe_configs broker", False, repr(e))
    sys.exit(1)

try:
    c = describe(admin, topic)
    r, p, s = c["retention.ms"], c["cleanup.policy"], c["segment.bytes"]
    check("describe_configs values",
          r.value == "3600000" and p.value == "compact" and
          s.value == bseg.value,
          "%s %s %s" % (r.value, p.value, s.value))
    check("describe_configs sources",
          r.source == 1 and p.source == 1 and s.source == bseg.source,
          "%s %s %s" % (r.source, p.source, s.source))
except Exception as e:
    check("describe_configs", False, repr(e))

res = ConfigResource(ConfigResource.Type.TOPIC, topic,
                     set_config={"retention.ms": "60000"})
try:
    admin.alter_configs([res])[res].result(timeout=15)
    c = describe(admin, topic)
    # AlterConfigs replaces the set: cleanup.policy is back to delete.
    check("alter_configs in force",
          c["retention.ms"].value == "60000" and
          c["cleanup.policy"].value == "delete",
          "%s %s" % (c["retention.ms"].value, c["cleanup.policy"].value))
except Exception as e:
    check("alter_configs", False, repr(e))

res = ConfigResource(ConfigResource.Type.TOPIC, topic,
                     set_config={"retention.ms": "-5"})
try:
    admin.alter_configs([res])[res].result(timeout=15)
    check("alter_configs bad value refused", False, "accepted")
except KafkaException as e:
    err = e.args[0]
    check("alter_configs bad value refused",
          err.code() == 40 and "retention.ms" in err.str(), err.str())
c = describe(admin, topic)
check("bad value changed nothing", c["retention.ms"].value == "60000",
      c["retention.ms"].value)

sys.exit(1 if failed else 0)
