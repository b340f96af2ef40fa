#!/usr/bin/python3
"""librdkafka 2.0.2's C admin API for ACLs (rd_kafka_CreateAcls,
DescribeAcls, DeleteAcls, through ctypes: tests/tools/rdkafka_acl.py)
against a broker without an auth_file (the runner's): each is answered
SECURITY_DISABLED (librdkafka shows DescribeAcls' as an empty listing:
it drops that response's error code).  With an auth_file the same calls succeed (see
tests/integration/test_kafka_acl.c).

    librdkafka_acl.py BROKER PREFIX

One line per check, "ok NAME" or "FAIL NAME: why"; exit 0 if all passed.
"""

import os
import subprocess
import sys

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "tools", "rdkafka_acl.py")


def main():
    broker, prefix = sys.argv[1], sys.argv[2]
    failed = 0
    for name, args, want in [
            ("CreateAcls", ["create", broker, "User:" + prefix, prefix + "t"],
             "create SECURITY_DISABLED"),
            # librdkafka reads DescribeAcls' top-level error code and
            # drops it (rd_kafka_DescribeAclsResponse_parse returns
            # NO_ERROR whatever it was): an empty, "successful" listing.
            ("DescribeAcls", ["describe", broker], "describe NO_ERROR 0"),
            ("DeleteAcls", ["delete", broker, "User:" + prefix, prefix + "t"],
             "delete SECURITY_DISABLED 0")]:
        try:
            out = subprocess.run([sys.executable, TOOL] + args,
                                 capture_output=True, text=True,
                                 timeout=60).stdout.strip()
        except subprocess.TimeoutExpired:
            out = "timeout"
        if out == want:
            print("ok " + name)
        else:
            failed += 1
            print("FAIL %s: %r, want %r" % (name, out, want))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
