#!/usr/bin/python3
"""ACLs and SCRAM users through Kafka's admin API, for
tests/integration/test_kafka_acl.c.  Each command prints one line the
test compares exactly.  Logins are SASL_PLAINTEXT SCRAM-SHA-256.

    kafka_acl.py create BROKER USER PW PRINCIPAL RTYPE NAME PATTERN OP PERM HOST
        kafka-python KafkaAdminClient.create_acls of one ACL: "create ok"
        or "create ERRORCLASS".
    kafka_acl.py describe BROKER USER PW [PRINCIPAL]
        describe_acls of everything (of PRINCIPAL): "describe" and one
        " RTYPE:NAME:PATTERN:PRINCIPAL:OP:PERM" per ACL, sorted, or
        "describe ERRORCLASS".
    kafka_acl.py delete BROKER USER PW PRINCIPAL RTYPE NAME PATTERN OP
        delete_acls of one filter: "delete N" (the ACLs it deleted) and
        " RTYPE:NAME:PATTERN:OP:ERRORCLASS" per matching ACL, or
        "delete ERRORCLASS".
    kafka_acl.py read BROKER USER PW TOPIC
        KafkaConsumer, assigned partition 0 (no group), from offset 0,
        what arrives within 3 seconds: "read ok V1,V2" or "read
        ERRORCLASS".  A topic the user may not read is "read ok " (the
        broker denies its metadata: kafka-python never fetches, and
        resetting offsets would retry forever).
    kafka_acl.py produce BROKER USER PW TOPIC VALUE
        KafkaProducer, one record to partition 0: "produce ok" or
        "produce ERRORCLASS".
    kafka_acl.py login BROKER USER PW [MECHANISM]
        KafkaConsumer.topics(), SCRAM-SHA-256 or MECHANISM: "login ok" or
        "login ERRORCLASS".
    kafka_acl.py scram-upsert BROKER USER PW NAME MECH ITERATIONS PASSWORD
    kafka_acl.py scram-delete BROKER USER PW NAME MECH
    kafka_acl.py scram-describe BROKER USER PW [NAME...]
        AlterUserScramCredentials / DescribeUserScramCredentials v0 in raw
        frames (kafka-python 2.0.2 has neither) after a SCRAM-SHA-256
        login of the test's own: "alter NAME CODE" per result; "describe
        CODE" then " NAME CODE MECH:ITER,..." per result.

Every wait is bounded (about 20 seconds)."""

import base64
import hashlib
import hmac
import os
import socket
import struct
import sys


def kp_opts(broker, user, pw):
    return dict(bootstrap_servers=broker, security_protocol="SASL_PLAINTEXT",
                sasl_mechanism="SCRAM-SHA-256", sasl_plain_username=user,
                sasl_plain_password=pw, request_timeout_ms=15000,
                api_version_auto_timeout_ms=10000)


def admin(broker, user, pw):
    from kafka.admin import KafkaAdminClient
    return KafkaAdminClient(**kp_opts(broker, user, pw))


def enums():
    from kafka.admin import (ResourceType, ACLOperation, ACLPermissionType,
                             ACLResourcePatternType)
    return ResourceType, ACLOperation, ACLPermissionType, ACLResourcePatternType


def create(broker, user, pw, principal, rtype, name, pattern, op, perm, host):
    from kafka.admin import ACL, ResourcePattern
    RT, OP, PT, PAT = enums()
    acl = ACL(principal=principal, host=host, operation=OP[op],
              permission_type=PT[perm],
              resource_pattern=ResourcePattern(RT[rtype], name, PAT[pattern]))
    a = admin(broker, user, pw)
    try:
        r = a.create_acls([acl])
        if r["failed"]:
            return "create " + r["failed"][0][1].__name__
        return "create ok"
    except Exception as e:
        return "create " + type(e).__name__
    finally:
        a.close()


def acl_line(acl, with_principal=True, err=None):
    rp = acl.resource_pattern
    f = [rp.resource_type.name, rp.resource_name, rp.pattern_type.name]
    if with_principal:
        f.append(acl.principal)
    f.append(acl.operation.name)
    f.append(acl.permission_type.name if err is None else err)
    return " " + ":".join(f)


def describe(broker, user, pw, principal=None):
    from kafka.admin import ACLFilter, ResourcePatternFilter
    RT, OP, PT, PAT = enums()
    a = admin(broker, user, pw)
    try:
        f = ACLFilter(principal=principal, host=None, operation=OP.ANY,
                      permission_type=PT.ANY,
                      resource_pattern=ResourcePatternFilter(RT.ANY, None,
                                                             PAT.ANY))
        acls, err = a.describe_acls(f)
        if err.errno != 0:
            return "describe " + err.__name__
        return "\n".join(["describe"] + sorted(acl_line(x) for x in acls))
    except Exception as e:
        return "describe " + type(e).__name__
    finally:
        a.close()


def delete(broker, user, pw, principal, rtype, name, pattern, op):
    from kafka.admin import ACLFilter, ResourcePatternFilter
    RT, OP, PT, PAT = enums()
    a = admin(broker, user, pw)
    try:
        f = ACLFilter(principal=principal, host="*", operation=OP[op],
                      permission_type=PT.ANY,
                      resource_pattern=ResourcePatternFilter(
                          RT[rtype], None if name == "-" else name,
                          PAT[pattern]))
        res = a.delete_acls([f])
        _, matches, err = res[0]
        if err.errno != 0:
            return "delete " + err.__name__
        lines = sorted(acl_line(m, False, e.__name__) for m, e in matches)
        n = sum(1 for _, e in matches if e.errno == 0)
        return "\n".join(["delete %d" % n] + lines)
    except Exception as e:
        return "delete " + type(e).__name__
    finally:
        a.close()


def read(broker, user, pw, topic):
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(consumer_timeout_ms=3000, **kp_opts(broker, user, pw))
    try:
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek(tp, 0)
        vals = [m.value.decode() for m in c]
        return "read ok " + ",".join(vals)
    except Exception as e:
        return "read " + type(e).__name__
    finally:
        c.close()


def produce(broker, user, pw, topic, value):
    from kafka import KafkaProducer
    p = KafkaProducer(acks=1, max_block_ms=10000, retries=0,
                      **kp_opts(broker, user, pw))
    try:
        p.send(topic, value=value.encode(), partition=0).get(timeout=15)
        res = "produce ok"
    except Exception as e:
        res = "produce " + type(e).__name__
    p.close(timeout=5)
    return res


def login(broker, user, pw, mech="SCRAM-SHA-256"):
    from kafka import KafkaConsumer
    try:
        c = KafkaConsumer(**dict(kp_opts(broker, user, pw),
                                 sasl_mechanism=mech))
        c.topics()
        c.close()
        return "login ok"
    except Exception as e:
        return "login " + type(e).__name__


# ---- raw frames ----

def uvarint(n):
    out = b""
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def cstr(s):
    b = s.encode() if isinstance(s, str) else s
    return uvarint(len(b) + 1) + b


class Reader:
    def __init__(self, b):
        self.b, self.i = b, 0

    def take(self, n):
        v = self.b[self.i:self.i + n]
        self.i += n
        return v

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def uv(self):
        n, s = 0, 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7f) << s
            s += 7
            if not b & 0x80:
                return n

    def cstr(self):
        n = self.uv()
        return None if n == 0 else self.take(n - 1).decode()

    def tags(self):
        for _ in range(self.uv()):
            self.uv()
            self.take(self.uv())


class Conn:
    def __init__(self, broker):
        host, port = broker.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=20)
        self.corr = 0

    def call(self, key, ver, body, flexible):
        self.corr += 1
        hdr = struct.pack(">hhih", key, ver, self.corr, 4) + b"test"
        if flexible:
            hdr += b"\x00"
        msg = hdr + body
        self.s.sendall(struct.pack(">i", len(msg)) + msg)
        n = struct.unpack(">i", self.recv(4))[0]
        r = Reader(self.recv(n))
        r.i32()
        if flexible:
            r.tags()
        return r

    def recv(self, n):
        b = b""
        while len(b) < n:
            got = self.s.recv(n - len(b))
            if not got:
                raise EOFError("closed")
            b += got
        return b

    def sasl(self, data):
        r = self.call(36, 1, struct.pack(">i", len(data)) + data, False)
        err = r.i16()
        ml = r.i16()
        if ml > 0:
            r.take(ml)
        out = r.take(r.i32())
        if err != 0:
            raise RuntimeError("sasl error %d" % err)
        return out

    def login(self, user, pw):
        mech = b"SCRAM-SHA-256"
        r = self.call(17, 1, struct.pack(">h", len(mech)) + mech, False)
        if r.i16() != 0:
            raise RuntimeError("handshake")
        cnonce = base64.b64encode(os.urandom(18)).decode()
        bare = "n=%s,r=%s" % (user, cnonce)
        first = self.sasl(("n,," + bare).encode()).decode()
        attrs = dict(kv.split("=", 1) for kv in first.split(","))
        salted = hashlib.pbkdf2_hmac("sha256", pw.encode(),
                                     base64.b64decode(attrs["s"]),
                                     int(attrs["i"]))
        ckey = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
        stored = hashlib.sha256(ckey).digest()
        without = "c=biws,r=" + attrs["r"]
        auth = ",".join([bare, first, without]).encode()
        sig = hmac.new(stored, auth, hashlib.sha256).digest()
        proof = bytes(a ^ b for a, b in zip(ckey, sig))
        self.sasl((without + ",p=" +
                   base64.b64encode(proof).decode()).encode())


MECHS = {"SCRAM-SHA-256": (1, "sha256"), "SCRAM-SHA-512": (2, "sha512")}


def mech_of(name):
    if name in MECHS:
        return MECHS[name]
    return (int(name), "sha256")


def alter_results(r):
    r.i32()
    out = []
    for _ in range(r.uv() - 1):
        user = r.cstr()
        code = r.i16()
        r.cstr()
        r.tags()
        out.append("alter %s %d" % (user, code))
    return "\n".join(out)


def scram_upsert(broker, user, pw, name, mech, iters, password):
    num, h = mech_of(mech)
    salt = os.urandom(32)
    salted = hashlib.pbkdf2_hmac(h, password.encode(), salt, int(iters))
    c = Conn(broker)
    c.login(user, pw)
    body = uvarint(1) + uvarint(2) + cstr(name) + struct.pack(">bi", num,
                                                              int(iters))
    body += cstr(salt) + cstr(salted) + b"\x00" + b"\x00"
    return alter_results(c.call(51, 0, body, True))


def scram_delete(broker, user, pw, name, mech):
    num, _ = mech_of(mech)
    c = Conn(broker)
    c.login(user, pw)
    body = uvarint(2) + cstr(name) + struct.pack(">b", num) + b"\x00"
    body += uvarint(1) + b"\x00"
    return alter_results(c.call(51, 0, body, True))


def scram_describe(broker, user, pw, names):
    c = Conn(broker)
    c.login(user, pw)
    body = uvarint(len(names) + 1)
    for n in names:
        body += cstr(n) + b"\x00"
    r = c.call(50, 0, body + b"\x00", True)
    r.i32()
    out = ["describe %d" % r.i16()]
    r.cstr()
    for _ in range(r.uv() - 1):
        u = r.cstr()
        code = r.i16()
        r.cstr()
        infos = []
        for _ in range(r.uv() - 1):
            m = r.i8()
            it = r.i32()
            r.tags()
            infos.append("%d:%d" % (m, it))
        r.tags()
        out.append(" %s %d %s" % (u, code, ",".join(infos)))
    return "\n".join(out)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    fn = {"create": create, "describe": describe, "delete": delete,
          "read": read, "produce": produce, "login": login, "scram-upsert": scram_upsert,
          "scram-delete": scram_delete}.get(cmd)
    if cmd == "scram-describe":
        print(scram_describe(args[0], args[1], args[2], args[3:]))
    elif fn is None:
        sys.exit("unknown command " + cmd)
    else:
        print(fn(*args))


if __name__ == "__main__":
    main()
