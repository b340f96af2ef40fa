#!/usr/bin/env node
// kafkajs admin createPartitions against a running broker:
//   tests/compat/admin/kafkajs_partitions.js BROKER PREFIX
// Grows PREFIX-grow from 3 to 6 partitions, checks fetchTopicMetadata,
// that a record produced to partition 5 comes back from fetchTopicOffsets,
// and that a decrease, the same count and an unknown topic are refused
// with Kafka's error (kafkajs throws KafkaJSAggregateError holding one
// error per topic).  Prints "ok NAME" or "FAIL NAME: why" per check;
// exits 0 only if all passed.  kafkajs through NODE_PATH
// (scripts/install-kafkajs).
'use strict';
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const { Kafka, logLevel } = require('kafkajs');

const [broker, prefix] = process.argv.slice(2);
const topic = prefix + '-grow';
let failed = 0;

function check(name, cond, why) {
  if (cond)
    console.log('ok ' + name);
  else {
    failed++;
    console.log('FAIL ' + name + ': ' + why);
  }
}

// The Kafka error type of a refused createPartitions, or null.
async function grow(admin, t, count, validateOnly) {
  try {
    await admin.createPartitions({ validateOnly: !!validateOnly, timeout: 15000,
      topicPartitions: [{ topic: t, count }] });
    return null;
  } catch (e) {
    const inner = e.errors && e.errors.length ? e.errors[0] : e;
    return inner.type || inner.name || String(inner);
  }
}

async function count(admin, t) {
  const md = await admin.fetchTopicMetadata({ topics: [t] });
  return md.topics[0].partitions.length;
}

async function main() {
  const kafka = new Kafka({ clientId: 'flume-admin-compat', brokers: [broker],
    logLevel: logLevel.NOTHING, retry: { retries: 3 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }],
    waitForLeaders: true });
  check('created with 3', await count(admin, topic) === 3, '');

  let err = await grow(admin, topic, 5, true);
  check('validateOnly answers ok', err === null, err);
  let n = await count(admin, topic);
  check('validateOnly changes nothing', n === 3, n);

  err = await grow(admin, topic, 6);
  check('createPartitions 3 -> 6', err === null, err);
  n = await count(admin, topic);
  check('metadata says 6', n === 6, n);

  err = await grow(admin, topic, 6);
  check('same count is INVALID_PARTITIONS', err === 'INVALID_PARTITIONS', err);
  err = await grow(admin, topic, 2);
  check('decrease is INVALID_PARTITIONS', err === 'INVALID_PARTITIONS', err);
  err = await grow(admin, prefix + '-missing', 4);
  check('unknown topic is UNKNOWN_TOPIC_OR_PARTITION',
    err === 'UNKNOWN_TOPIC_OR_PARTITION', err);
  n = await count(admin, topic);
  check('still 6 after the refusals', n === 6, n);

  const p = kafka.producer();
  await p.connect();
  const res = await p.send({ topic, acks: -1,
    messages: [{ partition: 5, value: 'in-new-partition' }] });
  await p.disconnect();
  check('produce to partition 5', res[0].partition === 5 &&
    res[0].baseOffset === '0', JSON.stringify(res));
  const offs = await admin.fetchTopicOffsets(topic);
  const p5 = offs.find((o) => o.partition === 5);
  check('partition 5 ends at offset 1', offs.length === 6 && p5 &&
    p5.high === '1', JSON.stringify(offs));
  await admin.disconnect();
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.log('FAIL kafkajs: ' + e); process.exit(1); });
