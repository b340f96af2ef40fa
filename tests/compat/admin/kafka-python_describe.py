#!/usr/bin/python3
"""kafka-python 2.0.2's KafkaAdminClient.describe_cluster().

    kafka-python_describe.py BROKER PREFIX    (tests/compat/admin/run)

kafka-python 2.0.2 answers describe_cluster() from a Metadata request
(it has no DescribeCluster), and has no describe_log_dirs(): this checks
what it does have, the one broker, the cluster id and the controller
that DescribeCluster answers too.
"""

import sys

from kafka import KafkaAdminClient

broker, prefix = sys.argv[1], sys.argv[2]
host, port = broker.rsplit(":", 1)
failed = 0


def check(what, ok, why=""):
    global failed
    print("ok %s" % what if ok else "FAIL %s: %s" % (what, why))
    failed += 0 if ok else 1


admin = KafkaAdminClient(bootstrap_servers=broker, client_id="admin-compat",
                         request_timeout_ms=10000)
c = admin.describe_cluster()
brokers = c.get("brokers", [])
check("describe_cluster brokers",
      len(brokers) == 1 and brokers[0]["node_id"] == 0 and
      brokers[0]["host"] == host and brokers[0]["port"] == int(port) and
      brokers[0]["rack"] is None, c)
check("describe_cluster cluster id", c.get("cluster_id") == "flume", c)
check("describe_cluster controller", c.get("controller_id") == 0, c)
check("describe_log_dirs absent in 2.0.2",
      not hasattr(admin, "describe_log_dirs"), "it exists now: test it")
admin.close()
sys.exit(1 if failed else 0)
