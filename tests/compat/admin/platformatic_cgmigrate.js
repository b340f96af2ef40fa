#!/usr/bin/env node
// The online migration of a Kafka group between the classic and the
// consumer protocol (KIP-848's upgrade and downgrade) with real clients:
//   tests/compat/admin/platformatic_cgmigrate.js BROKER PREFIX
// A librdkafka 2.0.2 classic consumer (python3-confluent-kafka, eager
// "range", run as a child process that reports its assignments with
// their times) consumes a keyed stream of a 6-partition topic alone.
// A @platformatic/kafka 1.20.0 consumer with groupProtocol 'consumer'
// joins the group while records flow: the group becomes a consumer
// group and the two share the partitions; then it closes (it leaves
// with epoch -1): the group is a classic one again and the librdkafka
// consumer gets all six back.  Checks: the shares after each change,
// every record delivered after each (nothing lost), and no partition
// owned by both at once: each 20 ms sample of the platformatic
// consumer's assignment against the librdkafka consumer's assignment at
// that instant (its on_assign/on_revoke times).  Prints "ok NAME" or
// "FAIL NAME: why" per check; exits 0 only if all passed.
// @platformatic/kafka comes from scripts/install-platformatic-kafka.
// The librdkafka consumer commits nothing: @platformatic/kafka 1.20.0
// commits the offset of the last record it processed and resumes at the
// committed offset + 1 (messages-stream.js #assignOffsets), one past
// where a Kafka client's commit (the next offset to read) says, so a
// partition handed from librdkafka to it over committed offsets would
// skip one record; without commits it starts from the earliest (records
// may come twice, none may be missing).
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const readline = require('node:readline');
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const { Kafka, logLevel } = require('kafkajs');

const [broker, prefix] = process.argv.slice(2);
const topic = prefix + '-mig';
const group = prefix + '-g';
const TOP = join(__dirname, '..', '..', '..');
let failed = 0;

function check(name, cond, why) {
  if (cond)
    console.log('ok ' + name);
  else {
    failed++;
    console.log('FAIL ' + name + ': ' + why);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond())
      return true;
    await sleep(50);
  }
  return cond();
}

// The classic member: prints "A ms p,p,..." on an assignment, "R ms
// p,p,..." on a revocation (before it returns), "M key" per record,
// and closes (a LeaveGroup) when its stdin closes.
const CLASSIC = `
import sys, threading, time
from confluent_kafka import Consumer
broker, group, topic = sys.argv[1:4]
def out(s):
    sys.stdout.write(s + "\\n")
    sys.stdout.flush()
def ms():
    return int(time.time() * 1000)
def ps(parts):
    return ",".join(str(p.partition) for p in parts)
c = Consumer({"bootstrap.servers": broker, "group.id": group,
              "auto.offset.reset": "earliest", "session.timeout.ms": 10000,
              "heartbeat.interval.ms": 300, "enable.auto.commit": False})
def on_assign(cons, parts):
    out("A %d %s" % (ms(), ps(parts)))
def on_revoke(cons, parts):
    out("R %d %s" % (ms(), ps(parts)))
c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()),
                 daemon=True).start()
while not stop.is_set():
    m = c.poll(0.05)
    if m is not None and m.error() is None:
        out("M %s %d %d" % (m.key().decode(), m.partition(), m.offset()))
c.close()
out("C %d" % ms())
`;

async function main() {
  const nm = execFileSync(join(TOP, 'scripts', 'install-platformatic-kafka'),
    { encoding: 'utf8' }).trim();
  const lib = join(nm, '@platformatic', 'kafka');
  if (!existsSync(join(lib, 'package.json')))
    throw new Error('no @platformatic/kafka in ' + nm);
  const pk = await import(pathToFileURL(join(lib, 'dist', 'index.js')).href);
  const kjs = new Kafka({ clientId: 'migadmin', brokers: [broker],
    logLevel: logLevel.NOTHING });
  const admin = kjs.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 6 }] });
  const producer = kjs.producer();
  await producer.connect();

  const got = new Set();
  const seen = [];	// [who, partition, offset, ms]
  const acked = new Set();
  let next = 0;
  let sent = 0;
  const sendErrors = [];
  async function produce(n) {
    const messages = [];
    for (let i = 0; i < n; i++, next++)
      messages.push({ key: 'k' + next, value: 'v' + next });
    try {
      const r = await producer.send({ topic, messages });
      for (const m of messages)
        acked.add(m.key);
      sent = acked.size;
      return r;
    } catch (e) {
      sendErrors.push(String(e));
    }
  }
  const missing = () => [...acked].filter((k) => !got.has(k));
  let flow = null;
  const startFlow = () => {
    flow = setInterval(() => { produce(5).catch(() => {}); }, 20);
  };
  const stopFlow = async () => {
    clearInterval(flow);
    await sleep(100);	// a send under way lands
  };

  // The librdkafka classic member and its assignment history.
  const lr = { events: [], cur: [], closed: false };
  const child = spawn('/usr/bin/python3', ['-c', CLASSIC, broker, group,
    topic], { stdio: ['pipe', 'pipe', 'inherit'] });
  readline.createInterface({ input: child.stdout }).on('line', (l) => {
    const [kind, t, list] = l.split(' ');
    if (kind === 'M') {
      got.add(t);
      seen.push(['L', Number(list), Number(l.split(' ')[3]), Date.now()]);
    }
    else if (kind === 'A' || kind === 'R') {
      const parts = list ? list.split(',').map(Number) : [];
      lr.cur = kind === 'A' ? parts : lr.cur.filter((p) => !parts.includes(p));
      lr.events.push({ t: Number(t), parts: lr.cur.slice() });
    } else if (kind === 'C')
      lr.closed = true;
  });
  const lrAt = (t) => {
    let p = [];
    for (const e of lr.events)
      if (e.t <= t)
        p = e.parts;
    return p;
  };

  let pc = null;
  const pcParts = () => {
    const a = pc && pc.assignments ? pc.assignments.find((x) =>
      x.topic === topic) : null;
    return a ? a.partitions.slice().sort((x, y) => x - y) : [];
  };
  const samples = [];
  const sampler = setInterval(() => {
    if (pc !== null)
      samples.push({ t: Date.now(), parts: pcParts() });
  }, 20);

  let ok = await waitFor(() => lr.cur.length === 6, 60000);
  check('the classic consumer owns all 6 partitions', ok, lr.cur);
  await produce(200);
  ok = await waitFor(() => missing().length === 0, 30000);
  check('200 keyed records delivered to the classic consumer', ok,
    got.size + ' of ' + sent);

  // Upgrade: the consumer protocol member joins while records flow.
  startFlow();
  pc = new pk.Consumer({ clientId: 'pk', groupId: group,
    bootstrapBrokers: [broker], deserializers: pk.stringDeserializers,
    groupProtocol: 'consumer', rebalanceTimeout: 60000, retries: 10 });
  const stream = await pc.consume({ topics: [topic], mode: 'committed',
    fallbackMode: 'earliest', maxWaitTime: 100, autocommit: 200 });
  const errors = [];
  stream.on('data', (r) => {
    got.add(r.key);
    seen.push(['P', r.partition, Number(r.offset), Date.now()]);
  });
  stream.on('error', (e) => errors.push(String(e)));
  ok = await waitFor(() => pcParts().length > 0 &&
    pcParts().length + lr.cur.length === 6 &&
    pcParts().every((p) => !lr.cur.includes(p)), 90000);
  check('upgraded: the two share the 6 partitions', ok,
    'classic ' + lr.cur + ' | consumer ' + pcParts());
  check('upgraded: 3 each', pcParts().length === 3 && lr.cur.length === 3,
    'classic ' + lr.cur + ' | consumer ' + pcParts());
  await stopFlow();
  ok = await waitFor(() => missing().length === 0, 30000);
  check('upgrade: every record delivered', ok, got.size + ' of ' + sent + ' missing ' + missing().slice(0, 5));

  // Downgrade: the consumer protocol member leaves while records flow.
  startFlow();
  await stream.close();
  await pc.close();
  ok = await waitFor(() => lr.cur.length === 6, 90000);
  check('downgraded: the classic consumer owns all 6 again', ok, lr.cur);
  await stopFlow();
  ok = await waitFor(() => missing().length === 0, 30000);
  check('downgrade: every record delivered', ok, got.size + ' of ' + sent +
    ' missing ' + missing().slice(0, 5) + ' send errors ' + sendErrors.length);
  clearInterval(sampler);

  const shared = [];
  for (const s of samples)
    for (const p of s.parts)
      if (lrAt(s.t).includes(p))
        shared.push('p' + p + ' at ' + s.t);
  check('no partition owned by both at once (' + samples.length +
    ' samples)', samples.length > 0 && shared.length === 0,
    shared.slice(0, 5).join('; '));
  check('no stream error', errors.length === 0, errors.join('; '));
  if (failed) {
    // Which offsets nobody delivered, and who delivered around them.
    for (let p = 0; p < 6; p++) {
      const offs = new Set(seen.filter((x) => x[1] === p).map((x) => x[2]));
      const max = Math.max(...offs);
      for (let o = 0; o <= max; o++)
        if (!offs.has(o)) {
          const near = seen.filter((x) => x[1] === p && Math.abs(x[2] - o) <= 2);
          console.log('# p' + p + ' offset ' + o + ' never delivered; near: ' +
            JSON.stringify(near));
        }
    }
    console.log('# classic events: ' + JSON.stringify(lr.events));
  }

  child.stdin.end();
  await waitFor(() => lr.closed, 15000);
  child.kill();
  await producer.disconnect();
  await admin.disconnect();
}

main().then(() => process.exit(failed ? 1 : 0), (e) => {
  console.log('FAIL script: ' + (e.stack || e));
  process.exit(1);
});
