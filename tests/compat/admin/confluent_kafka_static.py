#!/usr/bin/python3
"""confluent-kafka (librdkafka) static group membership (KIP-345,
group.instance.id) against a running broker:
tests/compat/admin/confluent_kafka_static.py BROKER PREFIX

Two members of one group on a 4-partition topic: A static, B dynamic.
A is closed (a static member sends no LeaveGroup) and started again
under the same instance id within its session: it gets exactly its old
partitions back, B is never revoked, keeps its partitions and goes on
consuming what is produced meanwhile.  A third consumer with the same
instance id fences the second (a fatal FENCED_INSTANCE_ID error).  When
the last static process is gone for good, B keeps its two partitions
until the static member's session ends, then gets all four.  Prints "ok
NAME" or "FAIL NAME: why" per check; exits 0 only if all passed.
"""

import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic

BROKER, PREFIX = sys.argv[1], sys.argv[2]
TOPIC = PREFIX + "-static"
GROUP = PREFIX + "-g"
SESSION_MS = 6000
failed = 0


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok " + name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


class Member:
    """A consumer with its assignment events and what it consumed."""

    def __init__(self, instance=None):
        self.revokes = 0
        self.assigns = 0
        self.errors = []
        self.got = {}      # partition -> [values]
        conf = {"bootstrap.servers": BROKER, "group.id": GROUP,
                "auto.offset.reset": "earliest",
                "session.timeout.ms": SESSION_MS,
                "heartbeat.interval.ms": 300,
                "enable.auto.commit": False,
                "error_cb": self.errors.append}
        if instance is not None:
            conf["group.instance.id"] = instance
        self.c = Consumer(conf)
        self.c.subscribe([TOPIC], on_assign=self.on_assign,
                         on_revoke=self.on_revoke)

    def on_assign(self, consumer, parts):
        self.assigns += 1

    def on_revoke(self, consumer, parts):
        if parts:
            self.revokes += 1

    def parts(self):
        return sorted(tp.partition for tp in self.c.assignment())

    def poll(self):
        m = self.c.poll(0.05)
        if m is not None and m.error() is None:
            self.got.setdefault(m.partition(), []).append(m.value())
        elif m is not None and m.error() is not None:
            self.errors.append(m.error())


def poll_until(members, cond, secs):
    deadline = time.time() + secs
    while time.time() < deadline:
        for m in members:
            m.poll()
        if cond():
            return True
    return False


def produce(tag, n_per_part=3):
    p = Producer({"bootstrap.servers": BROKER})
    for part in range(4):
        for i in range(n_per_part):
            p.produce(TOPIC, value=("%s-%d-%d" % (tag, part, i)).encode(),
                      partition=part)
    p.flush(15)


admin = AdminClient({"bootstrap.servers": BROKER})
admin.create_topics([NewTopic(TOPIC, 4, 1)], request_timeout=15)[TOPIC].result()
produce("r1")

a = Member(PREFIX + "-a")
b = Member()
ok = poll_until([a, b], lambda: len(a.parts()) + len(b.parts()) == 4 and
                a.parts() and b.parts(), 30)
check("two members split 4 partitions", ok, (a.parts(), b.parts()))
a_parts, b_parts = a.parts(), b.parts()
check("disjoint", not set(a_parts) & set(b_parts), (a_parts, b_parts))
ok = poll_until([a, b], lambda: all(len(b.got.get(p, [])) >= 3
                                    for p in b_parts), 20)
check("B consumes its partitions", ok, b.got)
b_revokes = b.revokes
b_assigns = b.assigns

# A closes: a static member sends no LeaveGroup, so nothing moves.
a.c.close()
produce("r2")
a2 = Member(PREFIX + "-a")
ok = poll_until([a2, b], lambda: a2.parts() != [], 30)
check("restarted static member assigned", ok, a2.parts())
check("restarted static member gets its old partitions",
      a2.parts() == a_parts, (a2.parts(), a_parts))
ok = poll_until([a2, b], lambda: all(len(b.got.get(p, [])) >= 6
                                     for p in b_parts), 20)
check("B went on consuming during the restart", ok, b.got)
ok = poll_until([a2, b], lambda: all(len(a2.got.get(p, [])) >= 3
                                     for p in a_parts), 20)
check("restarted member consumes its partitions", ok, a2.got)
check("B never revoked", b.revokes == b_revokes, (b.revokes, b_revokes))
check("B never reassigned", b.assigns == b_assigns, (b.assigns, b_assigns))
check("B kept its partitions", b.parts() == b_parts, (b.parts(), b_parts))
check("B saw no error", b.errors == [], b.errors)

# A third process with the same instance id fences the second.
a3 = Member(PREFIX + "-a")
# librdkafka raises it as a fatal error (_FATAL, naming the broker's 82).
ok = poll_until([a2, a3, b], lambda: any(
    e.code() in (KafkaError._FATAL, KafkaError.FENCED_INSTANCE_ID) and
    "group.instance.id" in e.str() for e in a2.errors), 30)
check("duplicate instance fences the old one", ok,
      [str(e) for e in a2.errors])
ok = poll_until([a3, b], lambda: a3.parts() == a_parts, 30)
check("the new instance holds the partitions", ok, a3.parts())
check("B still never revoked", b.revokes == b_revokes and
      b.parts() == b_parts, (b.revokes, b.parts()))

# The static member goes for good: B keeps its two until the session ends.
for m in (a2, a3):
    try:
        m.c.close()
    except Exception:
        pass
t0 = time.time()
poll_until([b], lambda: False, 2)
check("no rebalance before the session ends", b.parts() == b_parts and
      b.revokes == b_revokes, (b.parts(), b.revokes))
ok = poll_until([b], lambda: b.parts() == [0, 1, 2, 3], SESSION_MS / 1000 + 20)
dt = time.time() - t0
check("session expiry rebalances: B gets all 4", ok, b.parts())
check("not before the session timeout", dt >= SESSION_MS / 1000 - 1.5, dt)
b.c.close()
sys.exit(1 if failed else 0)
