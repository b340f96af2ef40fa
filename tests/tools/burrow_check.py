#!/usr/bin/python3
"""Burrow (Debian's 1.2.1, /usr/bin/Burrow) pointed at a broker, for
tests/integration/test_internal.c.

    burrow_check.py BROKER GROUP TOPIC

Starts ZooKeeper (Debian's zookeeper, its Java main class run directly)
on a free loopback port with a temporary data directory, then Burrow
with a generated configuration: cluster "local" = BROKER, consumer
module of class "kafka" (it reads __consumer_offsets), kafka-version
2.1.0, its HTTP server on a free port.  Polls (bounded, 120 s) until
/v3/kafka/local/consumer lists GROUP and /v3/kafka/local/consumer/
GROUP/lag reports it with a lag for TOPIC partition 0, and prints one
line: "listed GROUP; TOPIC/0 offset N lag L; totallag T" (or what it saw
last).  Both processes are killed by pid, the directories removed.
Exit 0 when it got an answer, 1 otherwise (the line says why, Burrow's
log is copied to stderr)."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ZK_CP = "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar"
ZK_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain"
BURROW = "/usr/bin/Burrow"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.loads(r.read().decode())
    except (OSError, ValueError):
        return None


def wait_zk(port, deadline):
    """Until ZooKeeper answers "srvr" as a standalone server (a client
    that connects before that is dropped, and Burrow never retries)."""
    while time.time() < deadline:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"srvr")
            got = b""
            while True:
                b = s.recv(4096)
                if not b:
                    break
                got += b
            s.close()
            if b"Mode: standalone" in got:
                return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    broker, group, topic = argv[1:]
    tmp = tempfile.mkdtemp(prefix="flume-burrow-")
    procs = []
    try:
        zport, hport = free_port(), free_port()
        os.mkdir(os.path.join(tmp, "zk"))
        with open(os.path.join(tmp, "zoo.cfg"), "w") as f:
            f.write("tickTime=2000\ndataDir=%s/zk\nclientPort=%d\n"
                    "clientPortAddress=127.0.0.1\n"
                    "admin.enableServer=false\n" % (tmp, zport))
        zlog = open(os.path.join(tmp, "zk.out"), "w")
        procs.append(subprocess.Popen(
            ["java", "-cp", ZK_CP, ZK_MAIN, os.path.join(tmp, "zoo.cfg")],
            stdout=zlog, stderr=subprocess.STDOUT))
        if not wait_zk(zport, time.time() + 60):
            print("zookeeper did not start")
            return 1
        with open(os.path.join(tmp, "burrow.toml"), "w") as f:
            f.write("""[general]
pidfile="%(t)s/burrow.pid"
[logging]
filename="%(t)s/burrow.log"
level="info"
[zookeeper]
servers=[ "127.0.0.1:%(z)d" ]
timeout=6
root-path="/burrow"
[client-profile.flume]
client-id="burrow-flume"
kafka-version="2.1.0"
[cluster.local]
class-name="kafka"
servers=[ "%(b)s" ]
client-profile="flume"
topic-refresh=2
offset-refresh=1
[consumer.local]
class-name="kafka"
cluster="local"
servers=[ "%(b)s" ]
client-profile="flume"
start-latest=false
[httpserver.default]
address="127.0.0.1:%(h)d"
[storage.default]
class-name="inmemory"
workers=4
intervals=10
expire-group=604800
min-distance=1
""" % {"t": tmp, "z": zport, "b": broker, "h": hport})
        blog = open(os.path.join(tmp, "burrow.out"), "w")
        procs.append(subprocess.Popen([BURROW, "--config-dir", tmp],
                                      cwd=tmp, stdout=blog,
                                      stderr=subprocess.STDOUT))
        base = "http://127.0.0.1:%d/v3/kafka/local/consumer" % hport
        deadline = time.time() + 120
        seen = "nothing"
        while time.time() < deadline:
            time.sleep(0.5)
            if procs[-1].poll() is not None:
                seen = "Burrow exited %d" % procs[-1].returncode
                break
            listed = get(base)
            if listed is None or group not in listed.get("consumers", []):
                seen = "consumers %s" % (
                    listed.get("consumers") if listed else None)
                continue
            lag = get(base + "/" + group + "/lag")
            st = lag.get("status", {}) if lag else {}
            for p in st.get("partitions") or []:
                if p.get("topic") == topic and p.get("partition") == 0 \
                        and p.get("end"):
                    print("listed %s; %s/0 offset %d lag %d; totallag %d"
                          % (group, topic, p["end"]["offset"],
                             p["current_lag"], st.get("totallag")))
                    return 0
            seen = "lag %s" % json.dumps(st)
        print("no answer from Burrow: %s" % seen)
        try:
            with open(os.path.join(tmp, "burrow.log")) as f:
                sys.stderr.write(f.read()[-4000:])
        except OSError:
            pass
        return 1
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGKILL)
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
