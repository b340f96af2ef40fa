#!/usr/bin/python3
"""librdkafka consumers with group.protocol=consumer (KIP-848) against a
running Flume broker.

    kip848_rdkafka.py MEMBER_BIN KAFKA_BROKER NATIVE_BROKER ADMIN_BIN PREFIX

MEMBER_BIN is tests/tools/kip848_member.c built against a librdkafka of
2.12 or later (Debian's 2.0.2 does not speak the consumer protocol; one
way: the librdkafka source bundled in npm's @confluentinc/kafka-javascript,
`npm pack @confluentinc/kafka-javascript`, then in package/deps/librdkafka
`./configure --prefix=$RDK --disable-gssapi --disable-curl && make -C src`
and point -I/-L at src/).  The broker must run with
group_consumer_session_timeout_ms and group_consumer_heartbeat_interval_ms
short (3s and 500ms) so that a killed member expires quickly.  ADMIN_BIN
is bin/flume-admin (it creates and grows the topic and shows the group:
the partitions the broker assigned each member).

Three members consume a keyed stream of a 6-partition topic; one is
killed (SIGKILL: it stops heartbeating and expires), one is added, the
topic grows to 9.  Checks: every key delivered, the broker's assignments
(flume-admin group, every 100 ms) never name a partition twice, a member
that keeps a partition is never asked to revoke it, and each member ends
with its share.  Prints "ok NAME" / "FAIL NAME: why"; exit 0 only if all
passed.
"""

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

from confluent_kafka import Producer

MEMBER, KBROKER, NBROKER, ADMIN, PREFIX = sys.argv[1:6]
TOPIC, GROUP = PREFIX + "-t", PREFIX + "-g"
failed = 0


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok " + name, flush=True)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why), flush=True)


def admin(*args):
    return subprocess.run([ADMIN, "-b", NBROKER] + list(args), check=False,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=30).stdout


def group_view():
    """{client id: set of partitions} as the broker assigned them."""
    out, view, inmembers = admin("group", GROUP), {}, False
    for line in out.splitlines():
        f = line.split()
        if line.startswith("MEMBER"):
            inmembers = True
            continue
        if line.startswith("TOPIC"):
            break
        if inmembers and len(f) >= 3:
            parts = set()
            if f[2] != "-":
                for tp in f[2].split(","):
                    parts.add(int(tp.rsplit("/", 1)[1]))
            view.setdefault(f[1], set()).update(parts)
    return view


work = tempfile.mkdtemp(prefix="kip848.")
procs, outs = {}, {}


def start(name):
    outs[name] = os.path.join(work, name + ".out")
    procs[name] = subprocess.Popen([MEMBER, KBROKER, TOPIC, GROUP, name],
                                   stdout=open(outs[name], "w"),
                                   stderr=subprocess.STDOUT)


def lines(name):
    with open(outs[name]) as f:
        return f.read().splitlines()


def keys_seen():
    seen = set()
    for n in outs:
        for ln in lines(n):
            if ln.startswith("rec "):
                seen.add(ln.split()[3])
    return seen


def wait(cond, secs):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


sent = 0
prod = Producer({"bootstrap.servers": KBROKER})


def produce(n):
    global sent
    for _ in range(n):
        prod.produce(TOPIC, key=("k%d" % sent).encode(), value=b"v")
        sent += 1
    prod.flush(15)


doubles = []
stop_sampler = threading.Event()


def sampler():
    while not stop_sampler.is_set():
        v = group_view()
        owner = {}
        for m, ps in v.items():
            for p in ps:
                if p in owner:
                    doubles.append("%d in %s and %s" % (p, owner[p], m))
                owner[p] = m
        time.sleep(0.1)


admin("create", TOPIC, "-p", "6")
threading.Thread(target=sampler, daemon=True).start()
for n in ("a", "b", "c"):
    start(n)
share = lambda k, names: (lambda v: all(len(v.get(n, ())) == k  # noqa: E731
                                        for n in names) and
                          len(v) == len(names))(group_view())
check("three members, 2 partitions each", wait(lambda: share(2, "abc"), 60),
      group_view())
produce(300)
check("300 keys delivered", wait(lambda: len(keys_seen()) == 300, 60),
      len(keys_seen()))

before = group_view()
procs["b"].send_signal(signal.SIGKILL)
procs["b"].wait()
check("b killed: a and c 3 each once its session ends",
      wait(lambda: share(3, "ac"), 60), group_view())
mid = group_view()
check("a kept its partitions", before["a"] <= mid.get("a", set()),
      (before["a"], mid.get("a")))
check("c kept its partitions", before["c"] <= mid.get("c", set()),
      (before["c"], mid.get("c")))
start("d")
check("d added: 2 each", wait(lambda: share(2, "acd"), 60), group_view())
admin("partitions", TOPIC, "9")
check("topic grown to 9: 3 each", wait(lambda: share(3, "acd"), 60),
      group_view())
final = group_view()
produce(90)
check("every key delivered, new partitions too",
      wait(lambda: len(keys_seen()) == sent, 60),
      "%d of %d" % (len(keys_seen()), sent))
stop_sampler.set()
check("no partition ever assigned to two members", not doubles, doubles[:5])
for n in ("a", "c", "d"):
    revoked = set()
    for ln in lines(n):
        if ln.startswith("revoke ") and ln.split()[1] != "-":
            revoked |= {int(x) for x in ln.split()[1].split(",")}
    check("%s never asked to revoke a partition it kept" % n,
          not (revoked & final.get(n, set())), (revoked, final.get(n)))
for n, p in procs.items():
    if p.poll() is None:
        p.terminate()
        p.wait(30)
print("# member outputs in " + work)
sys.exit(1 if failed else 0)
