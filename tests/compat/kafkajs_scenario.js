#!/usr/bin/env node
// kafkajs scenario for tests/compat/run (the commands and output lines
// are those of its docstring):
//   kafkajs_scenario.js caps
//   kafkajs_scenario.js produce BROKER TOPIC FIRST COUNT CODEC IDEM
//   kafkajs_scenario.js member BROKER TOPIC GROUP
// kafkajs comes from npm (pinned by the driver, found through NODE_PATH).
// Out of the box it has gzip only: snappy, lz4 and zstd need codec
// packages registered by the application, so caps lists gzip alone.
'use strict';
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');
const NAME = 'kafkajs';

function pad(i) { return String(i).padStart(6, '0'); }

function client(broker) {
  return new Kafka({ clientId: 'flume-compat', brokers: [broker],
    logLevel: logLevel.ERROR, retry: { retries: 10 } });
}

async function produce(broker, topic, first, count, codec, idem) {
  const codecs = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP };
  if (!(codec in codecs))
    throw new Error('kafkajs has no built-in ' + codec + ' codec');
  const p = client(broker).producer(idem ?
    { idempotent: true, maxInFlightRequests: 1 } : {});
  await p.connect();
  const headers = { client: NAME, first: String(first) };
  // Batches of 100 records per request, as an application's send() would.
  for (let i = first; i < first + count; i += 100) {
    const messages = [];
    for (let j = i; j < Math.min(i + 100, first + count); j++)
      messages.push({ key: 'k' + pad(j), value: 'v' + pad(j) + '-' + NAME, headers });
    await p.send({ topic, acks: -1, compression: codecs[codec], messages });
  }
  await p.disconnect();
  console.log('produced ' + count);
}

async function member(broker, topic, group) {
  const c = client(broker).consumer({ groupId: group, sessionTimeout: 10000,
    heartbeatInterval: 500, rebalanceTimeout: 30000 });
  c.on(c.events.GROUP_JOIN, (e) => {
    const parts = (e.payload.memberAssignment[topic] || []).slice().sort((a, b) => a - b);
    process.stdout.write('assigned ' + (parts.length ? parts.join(',') : '-') + '\n');
  });
  let stopping = false;
  process.on('SIGTERM', async () => {
    if (stopping) return;
    stopping = true;
    await c.disconnect();       // commits the resolved offsets, leaves
    process.stdout.write('closed\n', () => process.exit(0));
  });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  // eachBatch: kafkajs commits each batch's offsets once it resolves.
  await c.run({ eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
    let out = '';
    for (const m of batch.messages) {
      const h = Object.keys(m.headers || {}).map((k) => k + '=' + m.headers[k].toString()).join(',');
      out += 'rec ' + batch.partition + ' ' + m.offset + ' ' + m.key.toString() + ' ' +
        m.value.toString() + ' ' + h + '\n';
      resolveOffset(m.offset);
    }
    process.stdout.write(out);
    await heartbeat();
  } });
}

async function main(argv) {
  if (argv.length === 1 && argv[0] === 'caps') {
    console.log('version ' + require('kafkajs/package.json').version);
    console.log('codecs gzip');
    console.log('idempotence yes');
    return;
  }
  if (argv.length === 7 && argv[0] === 'produce')
    return produce(argv[1], argv[2], Number(argv[3]), Number(argv[4]), argv[5], argv[6] === '1');
  if (argv.length === 4 && argv[0] === 'member')
    return member(argv[1], argv[2], argv[3]);
  console.error('usage: kafkajs_scenario.js caps | produce ... | member ...');
  process.exit(2);
}

main(process.argv.slice(2)).catch((e) => { console.error('kafkajs: ' + e.message); process.exit(1); });
