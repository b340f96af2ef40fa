#!/usr/bin/python3
"""kafka-python 2.0.2's KafkaAdminClient ACL calls against a broker
without an auth_file (the runner's): create_acls, describe_acls and
delete_acls are each answered SECURITY_DISABLED, as by a Kafka broker
without an authorizer.  With an auth_file they are checked by
tests/integration/test_kafka_acl.c (tests/tools/kafka_acl.py).

    kafka-python_acl.py BROKER PREFIX

One line per check, "ok NAME" or "FAIL NAME: why"; exit 0 if all passed.
"""

import sys

from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,
                         ACLResourcePatternType, KafkaAdminClient,
                         ResourcePattern, ResourcePatternFilter,
                         ResourceType)
from kafka.errors import SecurityDisabledError


def main():
    broker, prefix = sys.argv[1], sys.argv[2]
    failed = 0
    a = KafkaAdminClient(bootstrap_servers=broker, request_timeout_ms=15000)

    def check(name, got):
        nonlocal failed
        if got is SecurityDisabledError:
            print("ok " + name)
        else:
            failed += 1
            print("FAIL %s: got %r, want SecurityDisabledError" % (name, got))

    acl = ACL(principal="User:" + prefix, host="*",
              operation=ACLOperation.READ,
              permission_type=ACLPermissionType.ALLOW,
              resource_pattern=ResourcePattern(ResourceType.TOPIC,
                                               prefix + "t"))
    try:
        r = a.create_acls([acl])
        check("create_acls", r["failed"][0][1] if r["failed"] else None)
    except Exception as e:
        check("create_acls", type(e))
    f = ACLFilter(principal=None, host=None, operation=ACLOperation.ANY,
                  permission_type=ACLPermissionType.ANY,
                  resource_pattern=ResourcePatternFilter(
                      ResourceType.ANY, None, ACLResourcePatternType.ANY))
    try:
        _, err = a.describe_acls(f)
        check("describe_acls", err)
    except Exception as e:
        check("describe_acls", type(e))
    try:
        r = a.delete_acls([f])
        check("delete_acls", r[0][2])
    except Exception as e:
        check("delete_acls", type(e))
    a.close()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
