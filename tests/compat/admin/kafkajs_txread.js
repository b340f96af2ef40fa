#!/usr/bin/env node
// kafkajs transactions read back on a running broker:
//   tests/compat/admin/kafkajs_txread.js BROKER PREFIX
// A transactional producer (kafkajs transaction()) sends 1,000 records to
// PREFIX-txread in 10 transactions of 100 it commits and 1,000 in 10 it
// aborts, interleaved; a consumer (readUncommitted false, kafkajs's
// default) gets exactly the 1,000 committed, one with readUncommitted
// true all 2,000, and neither a control record.  Prints "ok NAME" or
// "FAIL NAME: why" per check; exits 0 only if all passed.  kafkajs
// through NODE_PATH (scripts/install-kafkajs).
'use strict';
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const { Kafka, logLevel } = require('kafkajs');

const [broker, prefix] = process.argv.slice(2);
const topic = prefix + '-txread';
let failed = 0;

function check(name, cond, why) {
  if (cond)
    console.log('ok ' + name);
  else {
    failed++;
    console.log('FAIL ' + name + ': ' + why);
  }
}

// Values read by a group member from the beginning: want of them, then
// quietMs more with nothing new (at most 60 s).
async function read(kafka, group, readUncommitted, want, quietMs) {
  const c = kafka.consumer({ groupId: group, readUncommitted,
    maxWaitTimeInMs: 200 });
  const got = [];
  let last = Date.now();
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({ eachMessage: async ({ message }) => {
    got.push(message.value.toString());
    last = Date.now();
  } });
  const end = Date.now() + 60000;
  while (Date.now() < end &&
      (got.length < want || Date.now() - last < quietMs))
    await new Promise((r) => setTimeout(r, 100));
  await c.disconnect();
  return got;
}

async function main() {
  const kafka = new Kafka({ clientId: 'flume-txread', brokers: [broker],
    logLevel: logLevel.NOTHING, retry: { retries: 5 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }],
    waitForLeaders: true });
  await admin.disconnect();

  const p = kafka.producer({ transactionalId: prefix + '-tid',
    maxInFlightRequests: 1, idempotent: true });
  await p.connect();
  const committed = [], aborted = [];
  try {
    for (let t = 0; t < 20; t++) {
      const tag = t % 2 === 0 ? 'c' : 'a';
      const tx = await p.transaction();
      const messages = [];
      for (let i = 0; i < 100; i++) {
        const v = tag + '-' + String(t).padStart(2, '0') + '-' +
          String(i).padStart(3, '0');
        messages.push({ value: v, partition: i % 2 });
        (tag === 'c' ? committed : aborted).push(v);
      }
      await tx.send({ topic, messages });
      if (tag === 'c')
        await tx.commit();
      else
        await tx.abort();
    }
    check('10 committed and 10 aborted transactions', true, '');
  } catch (e) {
    check('10 committed and 10 aborted transactions', false, String(e));
    process.exit(1);
  }
  await p.disconnect();

  let got = await read(kafka, prefix + '-rc', false, 1000, 3000);
  const want = new Set(committed);
  check('read_committed gets exactly the 1,000 committed',
    got.length === 1000 && got.every((v) => want.has(v)) &&
    new Set(got).size === 1000, got.length + ' records');
  got = await read(kafka, prefix + '-ru', true, 2000, 3000);
  const all = new Set(committed.concat(aborted));
  check('read_uncommitted gets all 2,000',
    got.length === 2000 && got.every((v) => all.has(v)) &&
    new Set(got).size === 2000, got.length + ' records');
  check('no control record reaches either',
    got.every((v) => v.startsWith('c-') || v.startsWith('a-')), '');
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.log('FAIL kafkajs: ' + e); process.exit(1); });
