#!/usr/bin/python3
"""Write tests/fixtures/kafka_python_batch.bin: one RecordBatch v2 built by
kafka-python's own DefaultRecordBatchBuilder, the reference Flume's decoder
is checked against (tests/unit/test_kafka_compat.c).  Also writes
kafka_python_batch.txt, a human-readable description of what it holds.

Also writes kafka_python_batch_CODEC.bin for gzip, snappy, lz4 and zstd:
the same records in one batch compressed by kafka-python's own codecs
(its snappy is the xerial framing the Java client writes).

Run once with the Debian python3-kafka, python3-snappy, python3-lz4 and
python3-zstandard packages:
    /usr/bin/python3 tests/tools/kafka_fixture.py [OUTDIR]
The uncompressed output is deterministic (fixed timestamps); the
compressed files may differ by codec version, never in their records."""

import os
import sys

from kafka.record.default_records import (DefaultRecordBatch,
                                          DefaultRecordBatchBuilder)

BASE_TS = 1700000000000

# (timestamp, key, value, headers)
RECORDS = [
    (BASE_TS + 0, b"key-1", b"value-1", []),
    (BASE_TS + 5, None, b"no key here", []),
    (BASE_TS + 3, b"hdr", b"two headers",
     [("trace-id", b"abc-123"), ("empty", b"")]),
    (BASE_TS + 9, b"tombstone", None, []),
    (BASE_TS + 7, b"empty-value", b"", []),
    (BASE_TS + 1, b"utf8", "gr\u00fc\u00dfe \u65e5\u672c \u2713".encode("utf-8"),
     [("null-value", None)]),
]


def show(b):
    return "null" if b is None else b.hex() if b else "(empty)"


CODECS = [(1, "gzip"), (2, "snappy"), (3, "lz4"), (4, "zstd")]

# kafka-python sends a batch uncompressed when compressing does not make
# it smaller: the compressed fixtures add these repetitive records.
EXTRA = [(BASE_TS + 100 + i, b"key-%02d" % i,
          b"compressible value %02d " % i + b"abc" * 20, [])
         for i in range(40)]


def build(compression_type, records):
    builder = DefaultRecordBatchBuilder(
        magic=2, compression_type=compression_type, is_transactional=False,
        producer_id=-1, producer_epoch=-1, base_sequence=-1,
        batch_size=1 << 20)
    for i, (ts, key, value, headers) in enumerate(records):
        meta = builder.append(i, timestamp=ts, key=key, value=value,
                              headers=headers)
        assert meta is not None
    data = bytes(builder.build())
    batch = DefaultRecordBatch(data)
    assert batch.validate_crc()
    assert batch.compression_type == compression_type
    got = [(r.timestamp, r.key, r.value, r.headers) for r in batch]
    assert got == [(t, k, v, list(h)) for t, k, v, h in records], got
    return data


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
    for codec, name in CODECS:
        with open(os.path.join(outdir, "kafka_python_batch_%s.bin" % name),
                  "wb") as f:
            f.write(build(codec, RECORDS + EXTRA))
    data = build(0, RECORDS)

    # Read it back with kafka-python before handing it to anyone.
    batch = DefaultRecordBatch(data)
    assert batch.validate_crc()
    got = [(r.timestamp, r.key, r.value, r.headers) for r in batch]
    assert got == [(t, k, v, list(h)) for t, k, v, h in RECORDS], got

    with open(os.path.join(outdir, "kafka_python_batch.bin"), "wb") as f:
        f.write(data)
    with open(os.path.join(outdir, "kafka_python_batch.txt"), "w") as f:
        f.write("# RecordBatch v2 written by kafka-python %s "
                "DefaultRecordBatchBuilder\n" % __import__("kafka").__version__)
        f.write("# by tests/tools/kafka_fixture.py; checked by "
                "tests/unit/test_kafka_compat.c\n")
        f.write("size %d\n" % len(data))
        f.write("crc 0x%08x\n" % batch.crc)
        f.write("magic %d attributes %d leader_epoch 0\n"
                % (batch.magic, batch.attributes))
        f.write("producer_id -1 producer_epoch -1 base_sequence -1\n")
        f.write("first_timestamp %d max_timestamp %d\n"
                % (batch.first_timestamp, batch.max_timestamp))
        f.write("records %d last_offset_delta %d\n"
                % (len(RECORDS), batch.last_offset_delta))
        f.write("# offset timestamp key(hex) value(hex) headers\n")
        for i, (ts, key, value, headers) in enumerate(RECORDS):
            hs = " ".join("%s=%s" % (k, show(v)) for k, v in headers)
            f.write("%d %d %s %s %s\n" % (i, ts, show(key), show(value),
                                          hs or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
