// Transactions through kafkajs 2.2.4: producer.transaction() send and
// commit, send and abort, sendOffsets (the group's offset committed with
// the transaction), and fencing by a second producer with the same
// transactionalId.  read_uncommitted (readUncommitted: true) sees every
// record, read_committed only the committed ones.
// Usage: node kafkajs_txn.js BROKER PREFIX
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const [broker, prefix] = process.argv.slice(2);
const topic = prefix + '-txn';
const kafka = new Kafka({ clientId: 'kjs-txn', brokers: [broker],
    logLevel: logLevel.NOTHING, retry: { retries: 8 } });
let failed = 0;

function check(name, ok, why) {
    if (ok) {
        console.log('ok ' + name);
    } else {
        failed = 1;
        console.log('FAIL ' + name + ': ' + (why || ''));
    }
}

async function readAll(group, uncommitted, want) {
    const c = kafka.consumer({ groupId: group, readUncommitted: uncommitted });
    const got = [];
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => {
        got.push(message.value.toString());
    } });
    const end = Date.now() + 30000;
    while (Date.now() < end && got.length < want)
        await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1500));
    await c.disconnect();
    return got;
}

async function main() {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();

    const p = kafka.producer({ transactionalId: prefix + '-tid',
        maxInFlightRequests: 1, idempotent: true });
    await p.connect();
    let tx = await p.transaction();
    await tx.send({ topic, messages: Array.from({ length: 1000 },
        (_, i) => ({ value: 'c' + i })) });
    await tx.commit();
    check('commit 1000', true);
    tx = await p.transaction();
    await tx.send({ topic, messages: Array.from({ length: 1000 },
        (_, i) => ({ value: 'a' + i })) });
    await tx.abort();
    check('abort 1000', true);

    const unc = await readAll(prefix + '-g1', true, 2000);
    check('read_uncommitted sees 2000', unc.length === 2000,
        'got ' + unc.length);
    const com = await readAll(prefix + '-g2', false, 1000);
    const want = Array.from({ length: 1000 }, (_, i) => 'c' + i);
    check('read_committed sees the 1000 committed',
        com.length === 1000 && com.every((v, i) => v === want[i]),
        'got ' + com.length);

    // sendOffsets: the group's offset comes with the COMMIT.
    const g = prefix + '-eos';
    tx = await p.transaction();
    await tx.send({ topic, messages: [{ value: 'eos' }] });
    await tx.sendOffsets({ consumerGroupId: g,
        topics: [{ topic, partitions: [{ partition: 0, offset: '42' }] }] });
    const admin2 = kafka.admin();
    await admin2.connect();
    const before = await admin2.fetchOffsets({ groupId: g, topics: [topic] });
    await tx.commit();
    const after = await admin2.fetchOffsets({ groupId: g, topics: [topic] });
    await admin2.disconnect();
    check('sendOffsets pending before commit',
        before[0].partitions[0].offset === '-1',
        'before: ' + before[0].partitions[0].offset);
    check('sendOffsets committed with the transaction',
        after[0].partitions[0].offset === '42',
        'after: ' + after[0].partitions[0].offset);

    // Fencing.
    const p2 = kafka.producer({ transactionalId: prefix + '-tid',
        maxInFlightRequests: 1, idempotent: true });
    await p2.connect();
    const tx2 = await p2.transaction();
    let fenced = false;
    let why = '';
    try {
        const t1 = await p.transaction();
        await t1.send({ topic, messages: [{ value: 'old' }] });
        await t1.commit();
    } catch (e) {
        why = e.type || e.message;
        fenced = /FENCED|INVALID_PRODUCER_EPOCH|INVALID_TXN_STATE/.test(why);
    }
    check('first producer fenced', fenced, 'error: ' + why);
    await tx2.send({ topic, messages: [{ value: 'new' }] });
    await tx2.commit();
    check('second producer commits', true);
    await p.disconnect().catch(() => {});
    await p2.disconnect();
}

main().then(() => process.exit(failed), (e) => {
    check('transactions', false, e.type || e.message);
    process.exit(1);
});
