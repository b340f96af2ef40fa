#!/usr/bin/python3
"""Write the legacy message set fixtures of tests/unit/test_kmsgset.c.

    /usr/bin/python3 tests/tools/kmsgset_capture.py tests/fixtures/kmsgset

Needs Debian's python3-kafka (kafka-python 2.0.2), python3-snappy,
python3-lz4 and python3-xxhash (kafka-python's magic-0 LZ4 writer).
Offline: the bytes are kafka-python's own LegacyRecordBatchBuilder
output, magic 0 and 1, uncompressed, gzip, snappy (kafka-python writes
the xerial framing, as the Java client did) and lz4 (for magic 0 with the
header checksum Kafka 0.8-0.9 got wrong, KIP-57).  Two more are made the
way other clients write them: raw snappy (librdkafka and sarama:
snappy.compress of the inner set, no framing) and a wrapper whose offset
is the last inner relative offset (librdkafka).

Every NAME.bin gets NAME.txt: the records as kafka-python's
LegacyRecordBatch reads them back (the independent decoder the C test
compares its own against), one line each:

    offset timestamp key value

with timestamp "none" for magic 0 and key/value in hex, "-" for null.

fetch-m0.bin and fetch-m1.bin are what a broker answers a Fetch v0-1 /
v2-3 with for RECORDS at offsets 100.. (uncompressed, CreateTime): the C
converter's output must equal them byte for byte.
"""
import os
import struct
import sys

import snappy
from kafka.record import legacy_records
from kafka.record.legacy_records import (LegacyRecordBatch,
                                         LegacyRecordBatchBuilder)

TS = 1700000000000
RECORDS = [
    (b"k0", b"v0"),
    (None, b"value-one"),
    (b"k2", None),
    (b"", b""),
    (b"key-4", b"x" * 300),
]
CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3}


def build(magic, codec, records=RECORDS, base=0, ts=TS):
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=codec,
                                 batch_size=1 << 20)
    for i, (k, v) in enumerate(records):
        b.append(base + i, ts + i if magic else None, k, v)
    return bytes(b.build())


def set_offset(msg, offset):
    """A message's offset (not under its CRC), as a broker assigns it."""
    msg = bytearray(msg)
    struct.pack_into(">q", msg, 0, offset)
    return bytes(msg)


def split(buf):
    """The top-level messages of a message set."""
    out, pos = [], 0
    while pos < len(buf):
        _, size = struct.unpack_from(">qi", buf, pos)
        out.append(buf[pos:pos + 12 + size])
        pos += 12 + size
    return out


def decode(buf):
    lines = []
    for msg in split(buf):
        magic = msg[16]
        for r in LegacyRecordBatch(msg, magic):
            ts = "none" if r.timestamp is None else str(r.timestamp)
            k = "-" if r.key is None else (r.key.hex() or "")
            v = "-" if r.value is None else (r.value.hex() or "")
            lines.append("%d %s %s %s" % (r.offset, ts, k or '""',
                                          v or '""'))
    return "\n".join(lines) + "\n"


def write(outdir, name, data):
    with open(os.path.join(outdir, name + ".bin"), "wb") as f:
        f.write(data)
    with open(os.path.join(outdir, name + ".txt"), "w") as f:
        f.write(decode(data))


def main():
    outdir = sys.argv[1]
    for magic in (0, 1):
        for cname, codec in CODECS.items():
            write(outdir, "m%d-%s" % (magic, cname), build(magic, codec))
    # Raw snappy, as librdkafka and sarama write it.
    xerial = legacy_records.snappy_encode
    legacy_records.snappy_encode = snappy.compress
    try:
        for magic in (0, 1):
            write(outdir, "m%d-snappy-raw" % magic, build(magic, 2))
    finally:
        legacy_records.snappy_encode = xerial
    # A fetched magic-1 set: two gzip wrappers at log offsets 100-102 and
    # 103-104 (wrapper offset = last absolute inner offset), then one
    # uncompressed message at 105.
    a = set_offset(build(1, 1, RECORDS[:3]), 102)
    b = set_offset(build(1, 1, RECORDS[3:], ts=TS + 3), 104)
    c = set_offset(build(1, 0, [(b"last", b"one")], ts=TS + 9), 105)
    write(outdir, "m1-fetched", a + b + c)
    # The same as magic 0: inner offsets absolute.
    a = set_offset(build(0, 1, RECORDS[:3], base=100), 102)
    b = set_offset(build(0, 3, RECORDS[3:], base=103), 104)
    write(outdir, "m0-fetched", a + b)
    # What a Fetch v0-1 / v2-3 answer holds for RECORDS at 100..104.
    write(outdir, "fetch-m0", build(0, 0, base=100))
    write(outdir, "fetch-m1", build(1, 0, base=100))


if __name__ == "__main__":
    main()
