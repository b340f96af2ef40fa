#!/usr/bin/env node
// kafkajs admin.resetOffsets against Flume, for
// tests/integration/test_group_state.c:
//   kafkajs_reset.js BROKER TOPIC GROUP N
// produces v0..v(N-1) to TOPIC (one partition), reads them as GROUP
// (committed), resets GROUP to the earliest offset with
// admin.resetOffsets (kafkajs commits -2, Kafka's "earliest", from a
// member of the group), shows what the group has committed, and reads
// as GROUP again.  Prints, for the test to compare exactly:
//   first COUNT FIRST LAST     what the group read the first time
//   reset ok | reset timeout | reset error TYPE
//   committed OFFSET           the group's committed offset afterwards
//   second COUNT FIRST LAST    what the group read after the reset
// Each read waits (bounded) for N records, then 1 s more for extras.
// kafkajs 2.2.4 from npm, found through NODE_PATH.
'use strict';
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const { Kafka, logLevel } = require('kafkajs');

function within(ms, p) {
  return Promise.race([p, new Promise((resolve) =>
    setTimeout(() => resolve('timeout'), ms))]);
}

async function readAll(kafka, topic, group, n) {
  const c = kafka.consumer({ groupId: group, sessionTimeout: 10000,
    heartbeatInterval: 500 });
  const got = [];
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({ eachMessage: async ({ message }) => {
    got.push(message.value.toString());
  } });
  const deadline = Date.now() + 30000;
  while (got.length < n && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 1000));
  await c.disconnect();         // commits what was read, leaves
  return got;
}

function summary(tag, got) {
  return tag + ' ' + got.length + ' ' + (got[0] || '-') + ' ' +
    (got[got.length - 1] || '-');
}

async function main() {
  const [broker, topic, group, nstr] = process.argv.slice(2);
  const n = Number(nstr);
  const kafka = new Kafka({ clientId: 'flume-reset', brokers: [broker],
    logLevel: logLevel.NOTHING, retry: { retries: 5 } });
  const p = kafka.producer();
  await p.connect();
  const messages = [];
  for (let i = 0; i < n; i++)
    messages.push({ value: 'v' + i });
  await p.send({ topic, acks: -1, messages });
  await p.disconnect();

  console.log(summary('first', await readAll(kafka, topic, group, n)));

  const admin = kafka.admin();
  await admin.connect();
  let r;
  try {
    r = await within(20000, admin.resetOffsets({ groupId: group, topic,
      earliest: true }));
    console.log(r === 'timeout' ? 'reset timeout' : 'reset ok');
  } catch (e) {
    console.log('reset error ' + (e.type || e.name));
  }
  const offs = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  console.log('committed ' + offs[0].partitions.map((x) => x.offset).join(','));
  await admin.disconnect();

  console.log(summary('second', await readAll(kafka, topic, group, n)));
}

main().then(() => process.exit(0), (e) => {
  console.log('error ' + (e.type || e.name) + ' ' + e.message);
  process.exit(1);
});
