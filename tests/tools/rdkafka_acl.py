#!/usr/bin/python3
"""librdkafka's C admin API for ACLs (rd_kafka_CreateAcls, DescribeAcls,
DeleteAcls, librdkafka 1.9+) through ctypes: Debian's confluent-kafka
1.7 has no ACL methods, its librdkafka 2.0.2 has.  One line per check
for tests/compat/admin/librdkafka_acl.py and the fixtures of
tests/unit/test_kdesc.c.

    rdkafka_acl.py create BROKER PRINCIPAL TOPIC
        READ ALLOW on the LITERAL topic: "create ERRNAME" (NO_ERROR...)
    rdkafka_acl.py describe BROKER
        every ACL: "describe ERRNAME N"
    rdkafka_acl.py delete BROKER PRINCIPAL TOPIC
        the LITERAL topic's READ ACLs of PRINCIPAL: "delete ERRNAME N"
Extra arguments after BROKER are librdkafka properties name=value.
"""

import ctypes
import sys

rd = ctypes.CDLL("librdkafka.so.1")
P = ctypes.c_void_p
for name, res, args in [
        ("rd_kafka_conf_new", P, []),
        ("rd_kafka_conf_set", ctypes.c_int,
         [P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
          ctypes.c_size_t]),
        ("rd_kafka_new", P, [ctypes.c_int, P, ctypes.c_char_p,
                             ctypes.c_size_t]),
        ("rd_kafka_destroy", None, [P]),
        ("rd_kafka_queue_new", P, [P]),
        ("rd_kafka_queue_destroy", None, [P]),
        ("rd_kafka_queue_poll", P, [P, ctypes.c_int]),
        ("rd_kafka_event_destroy", None, [P]),
        ("rd_kafka_event_error", ctypes.c_int, [P]),
        ("rd_kafka_err2name", ctypes.c_char_p, [ctypes.c_int]),
        ("rd_kafka_error_code", ctypes.c_int, [P]),
        ("rd_kafka_AclBinding_new", P,
         [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
          ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
          ctypes.c_size_t]),
        ("rd_kafka_AclBindingFilter_new", P,
         [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
          ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
          ctypes.c_size_t]),
        ("rd_kafka_CreateAcls", None, [P, ctypes.POINTER(P), ctypes.c_size_t,
                                       P, P]),
        ("rd_kafka_DescribeAcls", None, [P, P, P, P]),
        ("rd_kafka_DeleteAcls", None, [P, ctypes.POINTER(P), ctypes.c_size_t,
                                       P, P]),
        ("rd_kafka_event_CreateAcls_result", P, [P]),
        ("rd_kafka_CreateAcls_result_acls", ctypes.POINTER(P),
         [P, ctypes.POINTER(ctypes.c_size_t)]),
        ("rd_kafka_acl_result_error", P, [P]),
        ("rd_kafka_event_DescribeAcls_result", P, [P]),
        ("rd_kafka_DescribeAcls_result_acls", ctypes.POINTER(P),
         [P, ctypes.POINTER(ctypes.c_size_t)]),
        ("rd_kafka_event_DeleteAcls_result", P, [P]),
        ("rd_kafka_DeleteAcls_result_responses", ctypes.POINTER(P),
         [P, ctypes.POINTER(ctypes.c_size_t)]),
        ("rd_kafka_DeleteAcls_result_response_error", P, [P]),
        ("rd_kafka_DeleteAcls_result_response_matching_acls",
         ctypes.POINTER(P), [P, ctypes.POINTER(ctypes.c_size_t)])]:
    f = getattr(rd, name)
    f.restype = res
    f.argtypes = args

TOPIC, ANY_RES = 2, 1
LITERAL, ANY_PAT = 3, 1
READ, ANY_OP = 3, 1
ALLOW, ANY_PERM = 3, 1


def client(broker, props):
    errstr = ctypes.create_string_buffer(512)
    conf = rd.rd_kafka_conf_new()
    for k, v in [("bootstrap.servers", broker)] + props:
        if rd.rd_kafka_conf_set(conf, k.encode(), v.encode(), errstr,
                                512) != 0:
            sys.exit(errstr.value.decode())
    rk = rd.rd_kafka_new(0, conf, errstr, 512)
    if not rk:
        sys.exit(errstr.value.decode())
    return rk


def wait(rk, q):
    ev = rd.rd_kafka_queue_poll(q, 20000)
    if not ev:
        print("timeout")
        sys.exit(1)
    return ev


def name(code):
    return rd.rd_kafka_err2name(code).decode()


def code_of(err):
    return rd.rd_kafka_error_code(err) if err else 0


def main():
    cmd, broker = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    props = [a.split("=", 1) for a in rest if "=" in a]
    args = [a for a in rest if "=" not in a]
    rk = client(broker, props)
    q = rd.rd_kafka_queue_new(rk)
    errstr = ctypes.create_string_buffer(512)
    cnt = ctypes.c_size_t()
    if cmd == "create":
        b = rd.rd_kafka_AclBinding_new(TOPIC, args[1].encode(), LITERAL,
                                       args[0].encode(), b"*", READ, ALLOW,
                                       errstr, 512)
        arr = (P * 1)(b)
        rd.rd_kafka_CreateAcls(rk, arr, 1, None, q)
        ev = wait(rk, q)
        res = rd.rd_kafka_event_CreateAcls_result(ev)
        err = rd.rd_kafka_event_error(ev)
        if err == 0:
            acls = rd.rd_kafka_CreateAcls_result_acls(res, ctypes.byref(cnt))
            err = code_of(rd.rd_kafka_acl_result_error(acls[0]))
        print("create " + name(err))
    elif cmd == "describe":
        f = rd.rd_kafka_AclBindingFilter_new(ANY_RES, None, ANY_PAT, None,
                                             None, ANY_OP, ANY_PERM, errstr,
                                             512)
        rd.rd_kafka_DescribeAcls(rk, f, None, q)
        ev = wait(rk, q)
        err = rd.rd_kafka_event_error(ev)
        n = 0
        if err == 0:
            res = rd.rd_kafka_event_DescribeAcls_result(ev)
            rd.rd_kafka_DescribeAcls_result_acls(res, ctypes.byref(cnt))
            n = cnt.value
        print("describe %s %d" % (name(err), n))
    elif cmd == "delete":
        f = rd.rd_kafka_AclBindingFilter_new(TOPIC, args[1].encode(),
                                             LITERAL, args[0].encode(), None,
                                             READ, ANY_PERM, errstr, 512)
        arr = (P * 1)(f)
        rd.rd_kafka_DeleteAcls(rk, arr, 1, None, q)
        ev = wait(rk, q)
        err = rd.rd_kafka_event_error(ev)
        n = 0
        if err == 0:
            res = rd.rd_kafka_event_DeleteAcls_result(ev)
            resp = rd.rd_kafka_DeleteAcls_result_responses(res,
                                                           ctypes.byref(cnt))
            err = code_of(rd.rd_kafka_DeleteAcls_result_response_error(
                resp[0]))
            rd.rd_kafka_DeleteAcls_result_response_matching_acls(
                resp[0], ctypes.byref(cnt))
            n = cnt.value
        print("delete %s %d" % (name(err), n))
    rd.rd_kafka_event_destroy(ev)
    rd.rd_kafka_queue_destroy(q)
    rd.rd_kafka_destroy(rk)


if __name__ == "__main__":
    main()
