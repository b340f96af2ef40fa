// Transactions with kafkajs 2.2.4 (issue 29): producer.transaction(),
// send, sendOffsets, commit and abort.
//
//     kafkajs_txn.js BROKER PREFIX      (tests/compat/txn/run)
//
// 8 transactions of 250 records over both partitions of PREFIX-ca, the
// even ones committed and the odd ones aborted (1,000 each, interleaved
// in each partition); each also sends offset t+1 of PREFIX-in/0 for
// group PREFIX-g.  A read_committed consumer gets exactly the 1,000
// committed, a read_uncommitted one exactly all 2,000, each reading to
// the log end (one marker per transaction and partition: 1,008 each);
// the group's committed offset is 7, the last committed transaction's
// (the aborted ones' offsets never apply).  A second producer with the
// same transactional id fences the first: its next send fails with
// PRODUCER_FENCED or INVALID_PRODUCER_EPOCH.
'use strict'

const { Kafka, logLevel } = require('kafkajs')

const [broker, prefix] = process.argv.slice(2)
const topic = prefix + 'ca'
const input = prefix + 'in'
const group = prefix + 'g'
let failed = 0

function check (what, ok, why) {
  console.log(ok ? `ok ${what}` : `FAIL ${what}: ${why}`)
  if (!ok) failed++
  return ok
}

function sorted (a) {
  return a.slice().sort()
}

function same (a, b) {
  const x = sorted(a)
  const y = sorted(b)
  return x.length === y.length && x.every((v, i) => v === y[i])
}

// Every record of topic from the beginning at an isolation level, until
// at least want came and each partition's batches reached ends[p].
async function read (kafka, readUncommitted, want, ends) {
  const c = kafka.consumer({ groupId: `${prefix}r${readUncommitted ? 'u' : 'c'}`,
    readUncommitted, maxWaitTimeInMs: 200 })
  const values = []
  const reached = {}
  let control = 0
  c.on(c.events.END_BATCH_PROCESS, e => {
    const next = Number(e.payload.lastOffset) + 1
    if (!(reached[e.payload.partition] >= next)) reached[e.payload.partition] = next
  })
  await c.connect()
  await c.subscribe({ topic, fromBeginning: true })
  await c.run({
    eachMessage: async ({ message }) => {
      if (message.isControlRecord) control++
      values.push(message.value.toString())
    }
  })
  const deadline = Date.now() + 30000
  while (Date.now() < deadline && !(values.length >= want &&
      Object.keys(ends).every(p => reached[p] === ends[p]))) {
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  await c.disconnect()
  return { values, reached, control }
}

async function ends (admin) {
  const o = await admin.fetchTopicOffsets(topic)
  const e = {}
  for (const p of o) e[p.partition] = Number(p.high)
  return e
}

function fencedType (e) {
  for (let x = e; x; x = x.cause || x.originalError) {
    if (x.type === 'PRODUCER_FENCED' || x.type === 'INVALID_PRODUCER_EPOCH') return x.type
  }
  return null
}

async function commitAbort (kafka, admin) {
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }, { topic: input, numPartitions: 1 }],
    waitForLeaders: true })
  const producer = kafka.producer({ transactionalId: prefix + 'tx', idempotent: true,
    maxInFlightRequests: 1 })
  await producer.connect()
  const committed = []
  const all = []
  for (let t = 0; t < 8; t++) {
    const txn = await producer.transaction()
    const vals = []
    for (let i = 0; i < 250; i++) vals.push(`${t % 2 ? 'a' : 'c'}-${t}-${i}`)
    await txn.send({ topic, messages: vals.map((v, i) => ({ value: v, partition: i % 2 })) })
    await txn.sendOffsets({ consumerGroupId: group,
      topics: [{ topic: input, partitions: [{ partition: 0, offset: String(t + 1) }] }] })
    if (t % 2) {
      await txn.abort()
    } else {
      await txn.commit()
      committed.push(...vals)
    }
    all.push(...vals)
  }
  await producer.disconnect()
  const e = await ends(admin)
  check('commit/abort: one marker per transaction and partition (LSO at the log end)',
    e[0] === 1008 && e[1] === 1008, JSON.stringify(e))
  let r = await read(kafka, false, 1000, e)
  check('commit/abort: read_committed gets exactly the 1000 committed',
    same(r.values, committed) && r.control === 0,
    `${r.values.length} records (${r.values.filter(v => v[0] === 'a').length} aborted), ` +
    `reached ${JSON.stringify(r.reached)}, ${r.control} control`)
  r = await read(kafka, true, 2000, e)
  check('commit/abort: read_uncommitted gets exactly all 2000',
    same(r.values, all) && r.control === 0,
    `${r.values.length} records, reached ${JSON.stringify(r.reached)}, ${r.control} control`)
  const o = await admin.fetchOffsets({ groupId: group, topics: [input] })
  const off = o[0].partitions.map(p => Number(p.offset))
  check('sendOffsets: the group has the last committed transaction\'s offset',
    off.length === 1 && off[0] === 7, JSON.stringify(o))
}

async function fencing (kafka) {
  const mk = () => kafka.producer({ transactionalId: prefix + 'fe', idempotent: true,
    maxInFlightRequests: 1 })
  const p1 = mk()
  await p1.connect()
  const t1 = await p1.transaction()
  await t1.send({ topic: prefix + 'fe', messages: [{ value: 'f1-0', partition: 0 }] })
  const p2 = mk()
  await p2.connect()
  // InitProducerId with the transactional id: the first's epoch is old.
  const t2 = await p2.transaction()
  try {
    await t1.send({ topic: prefix + 'fe', messages: [{ value: 'f1-1', partition: 0 }] })
    check('fencing: the first\'s next send is fenced', false, 'sent')
  } catch (e) {
    const type = fencedType(e)
    check('fencing: the first\'s next send is fenced', type !== null, `${e.name}: ${e.message}`)
  }
  await p1.disconnect()
  await t2.send({ topic: prefix + 'fe', messages: [{ value: 'f2-0', partition: 0 }] })
  await t2.commit()
  check('fencing: the second commits', true)
  await p2.disconnect()
}

async function main () {
  const kafka = new Kafka({ clientId: 'kafkajs-txn', brokers: [broker],
    logLevel: logLevel.NOTHING, retry: { retries: 5 } })
  const admin = kafka.admin()
  await admin.connect()
  try {
    await commitAbort(kafka, admin)
    await fencing(kafka)
  } finally {
    await admin.disconnect()
  }
}

main().then(() => process.exit(failed ? 1 : 0), e => {
  console.log(`FAIL kafkajs_txn: ${e.name}: ${e.message}`)
  process.exit(1)
})
