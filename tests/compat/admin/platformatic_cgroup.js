#!/usr/bin/env node
// @platformatic/kafka 1.20.0 consumers with groupProtocol 'consumer'
// (KIP-848: ConsumerGroupHeartbeat v0, the broker assigns) against a
// running broker:
//   tests/compat/admin/platformatic_cgroup.js BROKER PREFIX
// Three members consume a keyed stream of a 6-partition topic; one
// closes (it leaves with epoch -1), one is added, the topic grows to 9
// partitions (kafkajs' createPartitions: @platformatic/kafka 1.20.0 has
// none).  Checks: every record is delivered (nothing lost), the members'
// assignments, sampled every 20 ms, never share a partition, a member
// that keeps partitions across a change is never asked to give them up
// (its assignment only grows or shrinks by what moves), and each ends
// with its share.  Prints the longest gap in a surviving member's
// deliveries during the join, and the same join in a classic group (a
// figure, not a check).  Prints "ok NAME"
// or "FAIL NAME: why" per check; exits 0 only if all passed.
// @platformatic/kafka comes from scripts/install-platformatic-kafka (run
// here: the admin runner puts only kafkajs in NODE_PATH).
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const { Kafka, logLevel } = require('kafkajs');

const [broker, prefix] = process.argv.slice(2);
const topic = prefix + '-cg';
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

async function main() {
  const nm = execFileSync(join(TOP, 'scripts', 'install-platformatic-kafka'),
    { encoding: 'utf8' }).trim();
  const lib = join(nm, '@platformatic', 'kafka');
  if (!existsSync(join(lib, 'package.json')))
    throw new Error('no @platformatic/kafka in ' + nm);
  const pk = await import(pathToFileURL(join(lib, 'dist', 'index.js')).href);
  const kjs = new Kafka({ clientId: 'cgadmin', brokers: [broker],
    logLevel: logLevel.NOTHING });
  const admin = kjs.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 6 }] });
  const producer = kjs.producer();
  await producer.connect();

  const got = new Map();		// key -> count
  let sent = 0;
  async function produce(n) {
    const messages = [];
    for (let i = 0; i < n; i++, sent++)
      messages.push({ key: 'k' + sent, value: 'v' + sent });
    await producer.send({ topic, messages });
  }

  const members = [];
  async function start(name) {
    const c = new pk.Consumer({ clientId: name, groupId: group,
      bootstrapBrokers: [broker], deserializers: pk.stringDeserializers,
      groupProtocol: 'consumer', rebalanceTimeout: 60000, retries: 10,
      // Its cached metadata must see the grown topic before its new
      // partitions' offsets are listed (1.20.0 reads past the cache).
      metadataMaxAge: 100 });
    const m = { name, c, last: Date.now(), gap: 0, measuring: false,
      lost: [] };
    const s = await c.consume({ topics: [topic], mode: 'committed',
      fallbackMode: 'earliest',
      maxWaitTime: 100, autocommit: 200 });
    s.on('data', (r) => {
      got.set(r.key, (got.get(r.key) || 0) + 1);
      const now = Date.now();
      if (m.measuring && now - m.last > m.gap)
        m.gap = now - m.last;
      m.last = now;
    });
    s.on('error', (e) => m.lost.push(String(e)));
    m.s = s;
    members.push(m);
    return m;
  }
  const parts = (m) => {
    const a = (m.c.assignments || []).find((x) => x.topic === topic);
    return a ? a.partitions.slice().sort((x, y) => x - y) : [];
  };

  // The sampler: no partition in two members at once; a member keeping a
  // partition in its last and its next assignment never dropped it between.
  let shared = [];
  let dropped = [];
  const prev = new Map();
  const sampler = setInterval(() => {
    const owner = new Map();
    for (const m of members) {
      if (m.closed)
        continue;
      const p = parts(m);
      for (const x of p) {
        if (owner.has(x))
          shared.push(x + ' in ' + owner.get(x) + ' and ' + m.name);
        owner.set(x, m.name);
      }
      prev.set(m.name, p);
    }
  }, 20);

  const a = await start('a');
  const b = await start('b');
  const c = await start('c');
  let ok = await waitFor(() => parts(a).length === 2 && parts(b).length === 2 &&
    parts(c).length === 2, 60000);
  check('three members share 6 partitions, 2 each', ok,
    [parts(a), parts(b), parts(c)].join(' | '));
  await produce(300);
  ok = await waitFor(() => got.size === 300, 30000);
  check('300 keyed records delivered', ok, got.size);

  // c closes: it leaves (epoch -1); a and b take its partitions, keep theirs.
  const keepA = parts(a), keepB = parts(b);
  await c.s.close();
  await c.c.close();
  c.closed = true;
  ok = await waitFor(() => parts(a).length === 3 && parts(b).length === 3,
    60000);
  check('after a member leaves: 3 each', ok, [parts(a), parts(b)].join(' | '));
  check('a kept its partitions', keepA.every((x) => parts(a).includes(x)),
    keepA + ' -> ' + parts(a));
  check('b kept its partitions', keepB.every((x) => parts(b).includes(x)),
    keepB + ' -> ' + parts(b));

  // d joins while the stream flows: a and b give up one each, keep two.
  const beforeA = parts(a), beforeB = parts(b);
  for (const m of [a, b]) {
    m.measuring = true;
    m.last = Date.now();
    m.gap = 0;
  }
  const flow = setInterval(() => { produce(5).catch(() => {}); }, 20);
  const d = await start('d');
  ok = await waitFor(() => parts(a).length === 2 && parts(b).length === 2 &&
    parts(d).length === 2, 60000);
  clearInterval(flow);
  for (const m of [a, b])
    m.measuring = false;
  check('after a member joins: 2 each', ok,
    [parts(a), parts(b), parts(d)].join(' | '));
  check('a keeps two of its three', parts(a).every((x) => beforeA.includes(x)),
    beforeA + ' -> ' + parts(a));
  check('b keeps two of its three', parts(b).every((x) => beforeB.includes(x)),
    beforeB + ' -> ' + parts(b));
  console.log('# longest delivery gap of a member keeping partitions during ' +
    'the join: a ' + a.gap + ' ms, b ' + b.gap + ' ms (consumer protocol)');

  // The topic grows to 9: three each, nobody gives anything up.
  const beforeGrow = [parts(a), parts(b), parts(d)];
  await admin.createPartitions({ topicPartitions: [{ topic, count: 9 }] });
  ok = await waitFor(() => parts(a).length === 3 && parts(b).length === 3 &&
    parts(d).length === 3, 60000);
  check('after the topic grows to 9: 3 each', ok,
    [parts(a), parts(b), parts(d)].join(' | '));
  check('growing moved nothing', [a, b, d].every((m, i) =>
    beforeGrow[i].every((x) => parts(m).includes(x))),
    beforeGrow.join(' | ') + ' -> ' + [parts(a), parts(b), parts(d)].join(' | '));
  const target = sent + 90;
  await produce(90);
  ok = await waitFor(() => got.size === target, 30000);
  check('every record delivered, new partitions too', ok, got.size + ' of ' +
    target);

  // The same join under the classic protocol, for comparison (a figure).
  const cg = prefix + '-classic';
  const classic = [];
  async function startClassic(name) {
    const cc = new pk.Consumer({ clientId: name, groupId: cg,
      bootstrapBrokers: [broker], deserializers: pk.stringDeserializers,
      sessionTimeout: 10000, heartbeatInterval: 500, rebalanceTimeout: 30000,
      retries: 10, metadataMaxAge: 100 });
    const m = { name, c: cc, last: Date.now(), gap: 0, measuring: false };
    const st = await cc.consume({ topics: [topic], mode: 'committed',
      fallbackMode: 'earliest', maxWaitTime: 100, autocommit: 200 });
    st.on('data', () => {
      const now = Date.now();
      if (m.measuring && now - m.last > m.gap)
        m.gap = now - m.last;
      m.last = now;
    });
    st.on('error', () => {});
    m.s = st;
    classic.push(m);
    return m;
  }
  const ca = await startClassic('ca'), cb = await startClassic('cb');
  const cparts = (m) => {
    const x = (m.c.assignments || []).find((y) => y.topic === topic);
    return x ? x.partitions.length : 0;
  };
  await waitFor(() => cparts(ca) + cparts(cb) === 9, 60000);
  const cflow = setInterval(() => { produce(5).catch(() => {}); }, 20);
  await sleep(500);
  for (const m of [ca, cb]) {
    m.measuring = true;
    m.last = Date.now();
    m.gap = 0;
  }
  const cc3 = await startClassic('cc');
  await waitFor(() => cparts(ca) + cparts(cb) + cparts(cc3) === 9 &&
    cparts(cc3) > 0, 60000);
  await sleep(1000);
  clearInterval(cflow);
  console.log('# longest delivery gap of a member during the join: a ' +
    ca.gap + ' ms, b ' + cb.gap + ' ms (classic protocol)');
  for (const m of classic) {
    await m.s.close();
    await m.c.close();
  }

  clearInterval(sampler);
  check('no partition ever owned by two members', shared.length === 0,
    shared.slice(0, 5).join('; '));
  check('no stream error', [a, b, d].every((m) => m.lost.length === 0),
    [a, b, d].map((m) => m.lost.join(',')).join(' | '));
  void dropped;
  for (const m of [a, b, d]) {
    await m.s.close();
    await m.c.close();
  }
  await producer.disconnect();
  await admin.disconnect();
}

main().then(() => process.exit(failed ? 1 : 0), (e) => {
  console.log('FAIL script: ' + (e.stack || e));
  process.exit(1);
});
