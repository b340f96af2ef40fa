#!/usr/bin/env node
// @platformatic/kafka scenario for tests/compat/run (the commands and
// output lines are those of its docstring):
//   platformatic_scenario.mjs caps
//   platformatic_scenario.mjs produce BROKER TOPIC FIRST COUNT CODEC IDEM
//   platformatic_scenario.mjs member BROKER TOPIC GROUP
// @platformatic/kafka 1.20.0 comes from npm (scripts/install-platformatic-
// kafka, found through NODE_PATH; an ES module, so imported by path).  It
// speaks Kafka 3.5 to 4.0 only: every request at a flexible version
// (KIP-482).  With FLUME_COMPAT_APILOG set, every request it sends is
// appended to that file as "api KEY VERSION" (from its own
// diagnostics channel, which publishes the header it writes), and the
// driver checks each against Kafka's first flexible version of the key.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import diagnostics from 'node:diagnostics_channel';

const NAME = 'platformatic';
const lib = (process.env.NODE_PATH || '').split(':').filter(Boolean)
  .map((d) => join(d, '@platformatic', 'kafka'))
  .filter((d) => existsSync(join(d, 'package.json')))[0];
if (!lib) {
  console.error('platformatic_scenario: NODE_PATH must name the node_modules ' +
    'of scripts/install-platformatic-kafka');
  process.exit(2);
}
const kafka = await import(pathToFileURL(join(lib, 'dist', 'index.js')).href);
const { version } = JSON.parse(readFileSync(join(lib, 'package.json'), 'utf8'));

if (process.env.FLUME_COMPAT_APILOG) {
  const log = process.env.FLUME_COMPAT_APILOG;
  const seen = new Set();
  diagnostics.subscribe('tracing:plt:kafka:connections:api:start', (d) => {
    const k = d.apiKey + ' ' + d.apiVersion;
    if (seen.has(k)) return;
    seen.add(k);
    appendFileSync(log, 'api ' + k + '\n');
  });
}

function pad(i) { return String(i).padStart(6, '0'); }

// The codecs this installation can write: snappy and lz4 are optional
// native packages, zstd needs node's zlib zstd (node 22.15+).
function codecs() {
  const out = [];
  for (const c of ['gzip', 'snappy', 'lz4', 'zstd']) {
    try {
      kafka.compressionsAlgorithms[c].compressSync(Buffer.from('flume'));
      out.push(c);
    } catch (e) { /* not here */ }
  }
  return out;
}

async function produce(broker, topic, first, count, codec, idem) {
  const p = new kafka.Producer({ clientId: 'flume-compat',
    bootstrapBrokers: [broker], serializers: kafka.stringSerializers,
    idempotent: idem, acks: kafka.ProduceAcks.ALL, autocreateTopics: true,
    retries: 10, compression: codec === 'none' ? undefined : codec });
  const headers = { client: NAME, first: String(first) };
  // Batches of 100 records per request, as an application's send() would.
  for (let i = first; i < first + count; i += 100) {
    const messages = [];
    for (let j = i; j < Math.min(i + 100, first + count); j++)
      messages.push({ topic, key: 'k' + pad(j), value: 'v' + pad(j) + '-' + NAME,
        headers });
    await p.send({ messages });
  }
  await p.close();
  console.log('produced ' + count);
}

async function member(broker, topic, group) {
  const c = new kafka.Consumer({ clientId: 'flume-compat', groupId: group,
    bootstrapBrokers: [broker], deserializers: kafka.stringDeserializers,
    sessionTimeout: 10000, heartbeatInterval: 500, rebalanceTimeout: 30000,
    retries: 10 });
  c.on('consumer:group:join', (e) => {
    const a = (e.assignments || []).find((x) => x.topic === topic);
    const parts = a ? a.partitions.slice().sort((x, y) => x - y) : [];
    process.stdout.write('assigned ' + (parts.length ? parts.join(',') : '-') + '\n');
  });
  c.on('consumer:group:rebalance', () => process.stdout.write('revoked\n'));
  const stream = await c.consume({ topics: [topic], mode: 'committed',
    fallbackMode: 'earliest', autocommit: 200, maxWaitTime: 200 });
  let stopping = false;
  process.on('SIGTERM', async () => {
    if (stopping) return;
    stopping = true;
    await stream.close();       // commits what is pending
    await c.close();            // leaves the group
    process.stdout.write('closed\n', () => process.exit(0));
  });
  stream.on('data', (m) => {
    const h = [];
    for (const [k, v] of m.headers) h.push(k + '=' + v);
    process.stdout.write('rec ' + m.partition + ' ' + m.offset + ' ' + m.key +
      ' ' + m.value + ' ' + h.join(',') + '\n');
  });
  stream.on('error', (e) => { console.error('stream: ' + e); process.exit(1); });
}

async function main(argv) {
  if (argv.length === 1 && argv[0] === 'caps') {
    console.log('version ' + version);
    console.log('codecs ' + codecs().join(' '));
    console.log('idempotence yes');
    console.log('flexible all');
    return;
  }
  if (argv.length === 7 && argv[0] === 'produce')
    return produce(argv[1], argv[2], Number(argv[3]), Number(argv[4]), argv[5],
      argv[6] === '1');
  if (argv.length === 4 && argv[0] === 'member')
    return member(argv[1], argv[2], argv[3]);
  console.error('usage: see tests/compat/run');
  process.exit(2);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(NAME + ': ' + (e.stack || e));
  process.exit(1);
});
