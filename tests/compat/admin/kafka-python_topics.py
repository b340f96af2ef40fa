#!/usr/bin/python3
"""kafka-python 2.0.2's KafkaAdminClient: create, list and delete topics.

    kafka-python_topics.py BROKER PREFIX    (tests/compat/admin/run)
"""

import sys
import time

from kafka import KafkaAdminClient
from kafka.admin import NewTopic
from kafka.errors import TopicAlreadyExistsError

broker, prefix = sys.argv[1], sys.argv[2]
name = prefix + "t"
failed = 0


def check(what, ok, why=""):
    global failed
    print("ok %s" % what if ok else "FAIL %s: %s" % (what, why))
    failed += 0 if ok else 1


admin = KafkaAdminClient(bootstrap_servers=broker, client_id="admin-compat",
                         request_timeout_ms=10000)
admin.create_topics([NewTopic(name, 3, 1)], timeout_ms=10000)
check("create_topics", name in admin.list_topics(), admin.list_topics())
try:
    admin.create_topics([NewTopic(name, 3, 1)], timeout_ms=10000)
    check("create_topics existing", False, "no error")
except TopicAlreadyExistsError:
    check("create_topics existing", True)
meta = admin.describe_topics([name])
parts = sorted(p["partition"] for p in meta[0]["partitions"])
check("describe_topics", meta[0]["error_code"] == 0 and parts == [0, 1, 2],
      meta)
admin.delete_topics([name], timeout_ms=10000)
deadline = time.time() + 10
while name in admin.list_topics() and time.time() < deadline:
    time.sleep(0.05)    # Metadata lags the delete by a writer pass, bounded
check("delete_topics", name not in admin.list_topics(), admin.list_topics())
admin.close()
sys.exit(1 if failed else 0)
