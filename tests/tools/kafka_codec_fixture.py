#!/usr/bin/python3
"""Cross-check Flume's Kafka codec (proto/kafka/kdesc.h) with kafka-python's.

    /usr/bin/python3 tests/tools/kafka_codec_fixture.py encode [OUTDIR]
        Writes one request frame ([i32 size][header v1][body]) per
        supported (API, version), encoded by kafka-python's own
        kafka.protocol classes, as OUTDIR/NN-Api-vV.bin (default
        tests/fixtures/kafka_codec/).  tests/unit/test_kdesc.c decodes
        each with exact field assertions, test_kfixtures.c refuses every
        truncation; the same files seed the fuzz_kafka corpus.  Deterministic: run it again, nothing changes.

    /usr/bin/python3 tests/tools/kafka_codec_fixture.py decode API VERSION FILE
        Decodes FILE, a response body (no size, no header) written by
        Flume's encoder, with kafka-python's Response class for API and
        VERSION and prints it as one line of JSON (bytes as hex).  Exits 1
        if the body does not parse or leaves bytes over.

Run with the Debian python3-kafka package (2.0.2).  It has no classes for
InitProducerId, which are declared here from kafka-python's own types."""

import io
import json
import os
import sys

from kafka.protocol import admin, commit, fetch, group, metadata, offset
from kafka.protocol import produce
from kafka.protocol.api import Request, RequestHeader, Response
from kafka.protocol.types import (Array, Int16, Int32, Int64, Schema,
                                  String)


class InitProducerIdResponse_v0(Response):
    API_KEY = 22
    API_VERSION = 0
    SCHEMA = Schema(
        ('throttle_time_ms', Int32),
        ('error_code', Int16),
        ('producer_id', Int64),
        ('producer_epoch', Int16),
    )


class InitProducerIdResponse_v1(Response):
    API_KEY = 22
    API_VERSION = 1
    SCHEMA = InitProducerIdResponse_v0.SCHEMA


class InitProducerIdRequest_v0(Request):
    API_KEY = 22
    API_VERSION = 0
    RESPONSE_TYPE = InitProducerIdResponse_v0
    SCHEMA = Schema(
        ('transactional_id', String('utf-8')),
        ('transaction_timeout_ms', Int32),
    )


class InitProducerIdRequest_v1(Request):
    API_KEY = 22
    API_VERSION = 1
    RESPONSE_TYPE = InitProducerIdResponse_v1
    SCHEMA = InitProducerIdRequest_v0.SCHEMA


InitProducerIdRequest = [InitProducerIdRequest_v0, InitProducerIdRequest_v1]
InitProducerIdResponse = [InitProducerIdResponse_v0,
                          InitProducerIdResponse_v1]

# API name -> (request classes, response classes), by version.
APIS = {
    "Produce": (produce.ProduceRequest, produce.ProduceResponse),
    "Fetch": (fetch.FetchRequest, fetch.FetchResponse),
    "ListOffsets": (offset.OffsetRequest, offset.OffsetResponse),
    "Metadata": (metadata.MetadataRequest, metadata.MetadataResponse),
    "ApiVersions": (admin.ApiVersionRequest, admin.ApiVersionResponse),
    "InitProducerId": (InitProducerIdRequest, InitProducerIdResponse),
    "FindCoordinator": (commit.GroupCoordinatorRequest,
                        commit.GroupCoordinatorResponse),
    "JoinGroup": (group.JoinGroupRequest, group.JoinGroupResponse),
    "SyncGroup": (group.SyncGroupRequest, group.SyncGroupResponse),
    "Heartbeat": (group.HeartbeatRequest, group.HeartbeatResponse),
    "LeaveGroup": (group.LeaveGroupRequest, group.LeaveGroupResponse),
    "OffsetCommit": (commit.OffsetCommitRequest, commit.OffsetCommitResponse),
    "OffsetFetch": (commit.OffsetFetchRequest, commit.OffsetFetchResponse),
    "CreateTopics": (admin.CreateTopicsRequest, admin.CreateTopicsResponse),
    "DeleteTopics": (admin.DeleteTopicsRequest, admin.DeleteTopicsResponse),
    "CreatePartitions": (admin.CreatePartitionsRequest,
                         admin.CreatePartitionsResponse),
    "ListGroups": (admin.ListGroupsRequest, admin.ListGroupsResponse),
    "DescribeGroups": (admin.DescribeGroupsRequest,
                       admin.DescribeGroupsResponse),
}


def batch():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "fixtures", "kafka_python_batch.bin"),
              "rb") as f:
        return f.read()


JOIN_PROTOCOLS = [("range", b"\x00\x01meta"), ("roundrobin", b"")]

# (API, version, request fields), in the order of the output files.  The
# C test asserts every one of these values.  kafka-python 2.0.2 cannot
# encode a non-empty Fetch v7+ forgotten_topics_data (its topic field is
# the String class, not an instance): the C test builds that one itself.
REQUESTS = [
    ("Produce", 3, lambda: (None, -1, 1500,
                            [("t1", [(0, batch()), (3, None)]),
                             ("orders", [(2, b"")])])),
    ("Fetch", 4, lambda: (-1, 500, 1, 52428800, 0,
                          [("t1", [(0, 42, 1048576), (1, 0, 65536)]),
                           ("u", [(7, 9000000000, 100)])])),
    ("ListOffsets", 1, lambda: (-1, [("t1", [(0, -1), (1, -2),
                                             (2, 1700000000000)])])),
    ("Metadata", 0, lambda: (["t1", "orders"],)),
    ("Metadata", 1, lambda: (None,)),
    ("Metadata", 2, lambda: ([],)),
    ("Metadata", 3, lambda: (["a"],)),
    ("Metadata", 4, lambda: (["x", "y"], False)),
    ("ApiVersions", 0, lambda: ()),
    ("ApiVersions", 1, lambda: ()),
    ("ApiVersions", 2, lambda: ()),
    ("InitProducerId", 0, lambda: (None, 60000)),
    ("InitProducerId", 1, lambda: ("txn-1", 1000)),
    ("FindCoordinator", 0, lambda: ("g1",)),
    ("JoinGroup", 0, lambda: ("g1", 10000, "", "consumer", JOIN_PROTOCOLS)),
    ("JoinGroup", 1, lambda: ("g1", 10000, 30000, "m-1", "consumer",
                              JOIN_PROTOCOLS)),
    ("JoinGroup", 2, lambda: ("g2", 6000, 45000, "", "consumer",
                              [("range", b"\xff")])),
    ("SyncGroup", 0, lambda: ("g1", 3, "m-1", [("m-1", b"assign1"),
                                               ("m-2", b"")])),
    ("SyncGroup", 1, lambda: ("g1", 4, "m-2", [])),
    ("Heartbeat", 0, lambda: ("g1", 5, "m-1")),
    ("Heartbeat", 1, lambda: ("g1", 6, "m-2")),
    ("LeaveGroup", 0, lambda: ("g1", "m-1")),
    ("LeaveGroup", 1, lambda: ("g2", "m-2")),
    ("OffsetCommit", 0, lambda: ("g1", [("t1", [(0, 42, "meta"),
                                                (1, 7, None)])])),
    ("OffsetCommit", 1, lambda: ("g1", 4, "m-1",
                                 [("t1", [(0, 43, 1700000000000, "")])])),
    ("OffsetCommit", 2, lambda: ("g1", 5, "m-1", 86400000,
                                 [("t1", [(2, 99, "x")]), ("u", [])])),
    ("OffsetFetch", 0, lambda: ("g1", [("t1", [0, 1, 2]), ("u", [5])])),
    ("OffsetFetch", 1, lambda: ("g2", [("t1", [])])),
    ("CreateTopics", 0, lambda: ([("new1", 3, 1, [],
                                   [("retention.ms", "1000")])], 5000)),
    ("CreateTopics", 1, lambda: ([("new2", -1, -1, [(0, [0]), (1, [0, 1])],
                                   [("cleanup.policy", None)]),
                                  ("new3", 1, 1, [], [])], 6000, True)),
    ("CreateTopics", 2, lambda: ([("new4", 8, 3, [], [])], 7000, False)),
    ("DeleteTopics", 0, lambda: (["a", "b"], 3000)),
    ("DeleteTopics", 1, lambda: ([], 4000)),
    ("ListGroups", 0, lambda: ()),
    ("ListGroups", 1, lambda: ()),
    ("DescribeGroups", 0, lambda: (["g1", "g2"],)),
    ("DescribeGroups", 1, lambda: ([],)),
    ("Produce", 0, lambda: (1, 1000, [("t1", [(0, batch())])])),
    ("Produce", 1, lambda: (0, 2000, [("a", [(1, b"")])])),
    ("Produce", 2, lambda: (-1, 3000, [])),
    ("Produce", 4, lambda: (None, 1, 4000, [("t1", [(0, batch())])])),
    ("Produce", 5, lambda: ("txn", -1, 5000, [("b", [(2, None)])])),
    ("Produce", 6, lambda: (None, -1, 6000, [("t1", [(0, batch()),
                                                     (1, batch())])])),
    ("Produce", 7, lambda: (None, -1, 7000, [("t1", [(0, batch())])])),
    ("Fetch", 5, lambda: (-1, 500, 1, 1000, 0,
                          [("t1", [(0, 42, 3, 1048576)])])),
    ("Fetch", 6, lambda: (-1, 600, 2, 2000, 1,
                          [("t1", [(1, 43, -1, 65536)]), ("u", [])])),
    ("Fetch", 7, lambda: (-1, 700, 1, 3000, 0, 0, 0,
                          [("t1", [(0, 44, -1, 100)])], [])),
    ("Fetch", 8, lambda: (-1, 800, 1, 4000, 1, 12345, 3, [], [])),
    ("Fetch", 9, lambda: (-1, 900, 1, 5000, 0, 0, -1,
                          [("t1", [(0, 5, 45, -1, 200)])], [])),
    ("Fetch", 10, lambda: (-1, 1000, 1, 6000, 1, 0, -1,
                           [("t1", [(2, -1, 46, 0, 300),
                                    (3, 7, 47, 1, 400)])], [])),
    ("ListOffsets", 2, lambda: (-1, 1, [("t1", [(0, -1),
                                                (1, 1700000000000)])])),
]


def encode(outdir):
    os.makedirs(outdir, exist_ok=True)
    for i, (api, version, fields) in enumerate(REQUESTS):
        req = APIS[api][0][version](*fields())
        hdr = RequestHeader(req, correlation_id=1000 + i,
                            client_id="fixture-%d" % i)
        body = hdr.encode() + req.encode()
        frame = Int32.encode(len(body)) + body
        name = "%02d-%s-v%d.bin" % (i, api, version)
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(frame)
    return 0


def plain(t, v):
    """A decoded value as JSON-able data: structs as objects, bytes as hex."""
    if isinstance(t, Schema):
        return {n: plain(ft, fv) for n, ft, fv in zip(t.names, t.fields, v)}
    if isinstance(t, Array):
        return None if v is None else [plain(t.array_of, x) for x in v]
    if isinstance(v, bytes):
        return v.hex()
    return v


def decode(api, version, path):
    cls = APIS[api][1][int(version)]
    with open(path, "rb") as f:
        data = f.read()
    buf = io.BytesIO(data)
    try:
        resp = cls.decode(buf)
    except Exception as e:  # kafka-python raises bare errors on short data
        print("decode error: %r" % e)
        return 1
    rest = len(data) - buf.tell()
    if rest:
        print("%d bytes left over" % rest)
        return 1
    values = [resp.get_item(n) for n in cls.SCHEMA.names]
    print(json.dumps(plain(cls.SCHEMA, values), separators=(",", ":")))
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "encode":
        here = os.path.dirname(os.path.abspath(__file__))
        return encode(argv[2] if len(argv) > 2 else
                      os.path.join(here, "..", "fixtures", "kafka_codec"))
    if len(argv) == 5 and argv[1] == "decode":
        return decode(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
