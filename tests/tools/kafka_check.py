#!/usr/bin/python3
"""Check a RecordBatch v2 file written by Flume with kafka-python's reader.

    /usr/bin/python3 tests/tools/kafka_check.py [--codec N] FILE EXPECTED...

The batch must be compressed with codec N (Kafka's numbers: 1 gzip,
2 snappy, 3 lz4, 4 zstd), by default 0 (none); kafka-python decompresses
it with its own codecs.

Each EXPECTED describes one record, in order:
    KEY|VALUE[|HKEY=HVALUE...]
where a field is hex bytes, "-" for null, or "" for empty (header keys are
plain UTF-8 text).  Exits 0 if the CRC is valid and every key, value and
header matches; otherwise prints what differs and exits 1."""

import sys

from kafka.record.default_records import DefaultRecordBatch


def field(s):
    return None if s == "-" else bytes.fromhex(s)


def parse_expected(arg):
    parts = arg.split("|")
    if len(parts) < 2:
        raise ValueError("bad record spec %r" % arg)
    headers = []
    for h in parts[2:]:
        k, _, v = h.partition("=")
        headers.append((k, field(v)))
    return field(parts[0]), field(parts[1]), headers


def main(argv):
    codec = 0
    if len(argv) > 2 and argv[1] == "--codec":
        codec = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 2:
        print("usage: kafka_check.py [--codec N] FILE EXPECTED...",
              file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        data = f.read()
    want = [parse_expected(a) for a in argv[2:]]

    batch = DefaultRecordBatch(data)
    if batch.magic != 2:
        print("magic %d" % batch.magic)
        return 1
    if not batch.validate_crc():
        print("CRC mismatch: stored 0x%08x" % batch.crc)
        return 1
    if batch.compression_type != codec:
        print("compression %d, want %d" % (batch.compression_type, codec))
        return 1
    got = [(r.key, r.value, list(r.headers)) for r in batch]
    offsets = [r.offset for r in DefaultRecordBatch(data)]
    ok = True
    if len(got) != len(want):
        print("records: got %d, want %d" % (len(got), len(want)))
        ok = False
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("record %d: got %r, want %r" % (i, g, w))
            ok = False
    base = batch.base_offset
    if offsets != list(range(base, base + len(got))):
        print("offsets %r" % offsets)
        ok = False
    if batch.last_offset_delta != len(got) - 1:
        print("last_offset_delta %d" % batch.last_offset_delta)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
