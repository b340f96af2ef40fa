#!/usr/bin/python3
"""Transactions with confluent-kafka 1.7 / librdkafka 2.0.2 (issue 29).

    confluent_kafka_txn.py BROKER PREFIX      (tests/compat/txn/run)

- commit/abort: a transactional producer runs 8 transactions of 250
  records on both partitions of PREFIX-ca, committing the odd ones and
  aborting the others (1,000 committed, 1,000 aborted, interleaved in
  each partition); a read_committed consumer gets exactly the 1,000
  committed, a read_uncommitted one exactly all 2,000; each partition's
  log ends 8 offsets further (one COMMIT or ABORT marker per transaction
  and partition), and no record but the produced ones reaches either.
- fencing: a second producer with the same transactional id fences the
  first: the first's next produce and its commit fail with PRODUCER_FENCED
  or INVALID_PRODUCER_EPOCH as librdkafka reports it (its fatal _FENCED,
  raised by flush(), for the broker's INVALID_PRODUCER_EPOCH);
  what it wrote in that transaction never reaches read_committed
  consumers; the second commits.
- offsets: send_offsets_to_transaction's offsets are pending until the
  COMMIT (a read_committed consumer's committed(), OffsetFetch with
  require_stable, gets UNSTABLE_OFFSET_COMMIT, which librdkafka retries
  until its timeout, logging each; a read_uncommitted one's the last
  committed offset), applied by COMMIT, dropped by ABORT.
- timeout: a producer (a child process of this script) opens a
  transaction with transaction.timeout.ms 8000 on PREFIX-to/0, writes 50
  records and is killed; while it is open the last stable offset
  (ListOffsets read_committed) stays at its first offset and a
  read_committed consumer stops there; the broker aborts it after the
  timeout (an ABORT marker), the LSO moves to the log end, and a
  read_committed consumer gets exactly the records around it; the
  transactional id starts again.

One line per check, "ok NAME" or "FAIL NAME: why"; exit 0 only if all
passed.  Every wait is a poll with a deadline."""

import logging
import os
import signal
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, \
    Producer, TopicPartition, OFFSET_BEGINNING

failed = 0
TXN_TIMEOUT_MS = 8000
FENCED = (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
          KafkaError.INVALID_PRODUCER_EPOCH)


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok %s" % name, flush=True)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why), flush=True)
    return cond


def producer(broker, txid=None, **extra):
    conf = {"bootstrap.servers": broker, "linger.ms": 5}
    if txid is not None:
        conf["transactional.id"] = txid
    conf.update(extra)
    return Producer(conf)


def send(p, topic, values, parts):
    """Produces values round-robin over parts and waits for every
    delivery; returns the delivery errors."""
    errs = []

    def dr(err, msg):
        if err is not None:
            errs.append(err)
    for i, v in enumerate(values):
        p.produce(topic, v, partition=parts[i % len(parts)], on_delivery=dr)
    p.flush(30)
    return errs


def watermarks(broker, topic, part, committed):
    """(low, high) from ListOffsets at read_committed (high is the LSO)
    or read_uncommitted (high is the log end)."""
    c = Consumer({"bootstrap.servers": broker, "group.id": "wm",
                  "isolation.level": "read_committed" if committed
                  else "read_uncommitted"})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, part),
                                       timeout=10, cached=False)
    finally:
        c.close()


def read(broker, topic, parts, committed, want, ends, seconds=30):
    """Every record of parts from the beginning at the isolation level,
    until at least want records came and each partition reported its
    end at ends[p] (partition EOF: the fetch reached the LSO at
    read_committed, the log end at read_uncommitted).  Returns
    (values, eof offsets, errors)."""
    c = Consumer({"bootstrap.servers": broker, "group.id": "reader",
                  "enable.auto.commit": False,
                  "enable.partition.eof": True,
                  "isolation.level": "read_committed" if committed
                  else "read_uncommitted"})
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in parts])
    values, eof, errs = [], {}, []
    deadline = time.time() + seconds
    try:
        while time.time() < deadline:
            if len(values) >= want and \
                    all(eof.get(p) == ends[p] for p in parts):
                break
            m = c.poll(0.2)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    eof[m.partition()] = m.offset()
                else:
                    errs.append(m.error())
                continue
            eof.pop(m.partition(), None)
            values.append(m.value())
    finally:
        c.close()
    return values, eof, errs


def commit_abort(broker, prefix):
    topic = prefix + "ca"
    p = producer(broker, prefix + "ca-tx")
    p.init_transactions(30)
    committed, aborted, errs = [], [], []
    for t in range(8):
        vals = [b"%s-%d-%d" % (b"c" if t % 2 else b"a", t, i)
                for i in range(250)]
        p.begin_transaction()
        errs += send(p, topic, vals, [0, 1])
        if t % 2:
            p.commit_transaction(30)
            committed += vals
        else:
            p.abort_transaction(30)
            aborted += vals
    check("commit/abort: 8 transactions produced", not errs, "%s" % errs)
    ends = {q: watermarks(broker, topic, q, False)[1] for q in (0, 1)}
    check("commit/abort: one marker per transaction and partition",
          ends == {0: 1008, 1: 1008}, "log ends %s, want 1008 each" % ends)
    lso = {q: watermarks(broker, topic, q, True)[1] for q in (0, 1)}
    check("commit/abort: LSO at the log end", lso == ends,
          "LSO %s, log end %s" % (lso, ends))
    got, eof, rerrs = read(broker, topic, [0, 1], True, 1000, ends)
    check("commit/abort: read_committed gets exactly the 1000 committed",
          sorted(got) == sorted(committed) and not rerrs,
          "%d records (%d committed, %d aborted, %d other), eof %s, %s"
          % (len(got), sum(v in set(committed) for v in got),
             sum(v in set(aborted) for v in got),
             sum(v not in set(committed + aborted) for v in got), eof,
             rerrs))
    got, eof, rerrs = read(broker, topic, [0, 1], False, 2000, ends)
    check("commit/abort: read_uncommitted gets exactly all 2000",
          sorted(got) == sorted(committed + aborted) and not rerrs,
          "%d records (%d not produced), eof %s, %s"
          % (len(got), sum(v not in set(committed + aborted) for v in got),
             eof, rerrs))


def fencing(broker, prefix):
    topic, txid = prefix + "fe", prefix + "fe-tx"
    p1 = producer(broker, txid)
    p1.init_transactions(30)
    p1.begin_transaction()
    errs = send(p1, topic, [b"f1-%d" % i for i in range(10)], [0])
    check("fencing: first producer writes in its transaction", not errs,
          "%s" % errs)
    p2 = producer(broker, txid)
    p2.init_transactions(30)
    # librdkafka turns the broker's INVALID_PRODUCER_EPOCH into its fatal
    # _FENCED, which flush() raises (or a delivery report carries).
    try:
        errs = send(p1, topic, [b"f1-late"], [0])
    except KafkaException as e:
        errs = [e.args[0]] if e.args[0].fatal() else ["not fatal", e]
    check("fencing: the first's next produce is fenced",
          len(errs) == 1 and errs[0].code() in FENCED,
          "errors %s" % errs)
    try:
        p1.commit_transaction(30)
        check("fencing: the first's commit is fenced", False, "committed")
    except KafkaException as e:
        err = e.args[0]
        check("fencing: the first's commit is fenced",
              err.code() in FENCED and err.fatal(), "%s" % err)
    p2.begin_transaction()
    errs = send(p2, topic, [b"f2-%d" % i for i in range(10)], [0])
    p2.commit_transaction(30)
    check("fencing: the second commits", not errs, "%s" % errs)
    end = watermarks(broker, topic, 0, False)[1]
    got, eof, rerrs = read(broker, topic, [0], True, 10, {0: end})
    check("fencing: read_committed gets only the second's records",
          sorted(got) == sorted(b"f2-%d" % i for i in range(10)) and
          not rerrs, "%s, eof %s (log end %d), %s" % (got, eof, end, rerrs))


class Lines(logging.Handler):
    """librdkafka's log lines (its debug=protocol)."""

    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def committed(broker, group, topic, stable):
    """The group's committed offset of topic/0 as a consumer at
    read_committed (OffsetFetch require_stable) or read_uncommitted
    sees it: (the offset or the KafkaError code it got within 2 s, how
    often librdkafka retried its OffsetFetch: it retries an answer of
    UNSTABLE_OFFSET_COMMIT, and logs no error name)."""
    log = logging.getLogger("ck-offsets-%s" % stable)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    lines = Lines()
    log.addHandler(lines)
    c = Consumer({"bootstrap.servers": broker, "group.id": group,
                  "enable.auto.commit": False, "debug": "protocol",
                  "isolation.level": "read_committed" if stable
                  else "read_uncommitted"}, logger=log)
    try:
        got = c.committed([TopicPartition(topic, 0)], 2)[0].offset
    except KafkaException as e:
        got = e.args[0]
    finally:
        c.poll(0.1)     # serves the log lines
        c.close()
        log.removeHandler(lines)
    retries = sum(1 for l in lines.lines
                  if "Retrying OffsetFetchRequest" in l)
    if isinstance(got, KafkaError):
        return got.code(), retries
    return got, retries


def offsets(broker, prefix):
    """send_offsets_to_transaction's offsets stay pending until the
    COMMIT: OffsetFetch with require_stable gets UNSTABLE_OFFSET_COMMIT
    meanwhile, without it the last committed offset; an ABORT drops
    them."""
    topic, group = prefix + "of", prefix + "of-g"
    g = Consumer({"bootstrap.servers": broker, "group.id": group})
    meta = g.consumer_group_metadata()
    p = producer(broker, prefix + "of-tx")
    p.init_transactions(30)
    results = []
    for off, end in ((5, "commit"), (9, "abort")):
        p.begin_transaction()
        errs = send(p, topic, [b"of-%d" % off], [0])
        p.send_offsets_to_transaction([TopicPartition(topic, 0, off)], meta,
                                      30)
        pend = (committed(broker, group, topic, True),
                committed(broker, group, topic, False))
        if end == "commit":
            p.commit_transaction(30)
        else:
            p.abort_transaction(30)
        results.append((pend, committed(broker, group, topic, True), errs))
    g.close()
    (s1, u1), after1, e1 = results[0]
    (s2, u2), after2, e2 = results[1]
    # librdkafka retries UNSTABLE_OFFSET_COMMIT until its timeout.
    to = KafkaError._TIMED_OUT
    check("offsets: pending ones are unstable to require_stable",
          s1[0] == to and s1[1] > 0 and s2[0] == to and s2[1] > 0,
          "got %s and %s (want _TIMED_OUT after retried OffsetFetches)"
          % (s1, s2))
    check("offsets: without require_stable the last committed one",
          u1 == (-1001, 0) and u2 == (5, 0), "got %s and %s (want -1001, 5)"
          % (u1, u2))
    # Right after EndTxn the offsets may still be unstable for a moment
    # (Kafka's markers land after its answer too): retries allowed.
    check("offsets: COMMIT applies them, ABORT drops them",
          after1[0] == 5 and after2[0] == 5 and not e1 and not e2,
          "after the commit %s, after the abort %s, %s %s"
          % (after1, after2, e1, e2))


def open_and_die(broker, topic, txid):
    """The child of timeout(): opens a transaction, writes 50 records on
    partition 0, says so, and dies with the transaction open."""
    p = producer(broker, txid, **{"transaction.timeout.ms": TXN_TIMEOUT_MS})
    p.init_transactions(30)
    p.begin_transaction()
    errs = send(p, topic, [b"to-open-%d" % i for i in range(50)], [0])
    print("open %d" % len(errs), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


def timeout(broker, prefix):
    topic, txid = prefix + "to", prefix + "to-tx"
    a = producer(broker, prefix + "to-a")
    a.init_transactions(30)
    a.begin_transaction()
    errs = send(a, topic, [b"to-c-%d" % i for i in range(10)], [0])
    a.commit_transaction(30)
    start = time.time()
    r = subprocess.run([sys.executable, os.path.abspath(__file__),
                        "--open-and-die", broker, topic, txid],
                       stdout=subprocess.PIPE, universal_newlines=True,
                       timeout=60)
    if not check("timeout: a producer dies with its transaction open",
                 r.returncode == -signal.SIGKILL and
                 r.stdout.strip() == "open 0" and not errs,
                 "exit %s, said %r, %s" % (r.returncode, r.stdout, errs)):
        return
    plain = producer(broker)
    errs = send(plain, topic, [b"to-after-%d" % i for i in range(10)], [0])
    end = watermarks(broker, topic, 0, False)[1]
    lso = watermarks(broker, topic, 0, True)[1]
    # Nothing can have aborted it yet: its timeout runs from its start,
    # after `start`.
    early = time.time() - start < TXN_TIMEOUT_MS / 1000.0
    check("timeout: while open the LSO is its first offset",
          early and not errs and end == 71 and lso == 11,
          "log end %d (want 71), LSO %d (want 11), %.1f s after the "
          "start, %s" % (end, lso, time.time() - start, errs))
    got, eof, rerrs = read(broker, topic, [0], True, 10, {0: 11})
    check("timeout: while open read_committed stops at the LSO",
          sorted(got) == sorted(b"to-c-%d" % i for i in range(10)) and
          eof == {0: 11} and not rerrs, "%s, eof %s, %s" % (got, eof, rerrs))
    # The broker aborts it within its timeout plus its check interval.
    deadline = time.time() + TXN_TIMEOUT_MS / 1000.0 + 60
    while time.time() < deadline:
        lso = watermarks(broker, topic, 0, True)[1]
        if lso != 11:
            break
        time.sleep(0.2)
    end = watermarks(broker, topic, 0, False)[1]
    check("timeout: the broker aborts it and the LSO moves on",
          lso == 72 and end == 72,
          "LSO %d, log end %d (want 72: an ABORT marker after the 10 "
          "records written after it), %.1f s after its start"
          % (lso, end, time.time() - start))
    want = [b"to-c-%d" % i for i in range(10)] + \
        [b"to-after-%d" % i for i in range(10)]
    got, eof, rerrs = read(broker, topic, [0], True, 20, {0: end})
    check("timeout: read_committed never sees its records",
          got == want and eof == {0: end} and not rerrs,
          "%s, eof %s, %s" % (got, eof, rerrs))
    got, eof, rerrs = read(broker, topic, [0], False, 70, {0: end})
    check("timeout: read_uncommitted sees them",
          sorted(got) == sorted(want + [b"to-open-%d" % i
                                        for i in range(50)]) and not rerrs,
          "%d records, eof %s, %s" % (len(got), eof, rerrs))
    p = producer(broker, txid)
    p.init_transactions(30)
    p.begin_transaction()
    errs = send(p, topic, [b"to-again"], [0])
    p.commit_transaction(30)
    got, eof, rerrs = read(broker, topic, [0], True, 21, {0: end + 2})
    check("timeout: the transactional id commits again",
          got == want + [b"to-again"] and not errs and not rerrs,
          "%s, eof %s, %s %s" % (got[20:], eof, errs, rerrs))


def main(argv):
    if len(argv) == 5 and argv[1] == "--open-and-die":
        open_and_die(*argv[2:])
        return 1
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    broker, prefix = argv[1], argv[2]
    for part in (commit_abort, offsets, fencing, timeout):
        try:
            part(broker, prefix)
        except KafkaException as e:
            check(part.__name__, False, "%s" % e)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
