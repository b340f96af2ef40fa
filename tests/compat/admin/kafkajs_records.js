// kafkajs 2.2.4's admin client: deleteTopicRecords (DeleteRecords),
// deleteGroups (DeleteGroups), resetOffsets and setOffsets (a consumer
// that joins the empty group, seeks and commits), fetchOffsets.
//
//     kafkajs_records.js BROKER PREFIX    (tests/compat/admin/run)
'use strict'

const { Kafka, logLevel } = require('kafkajs')

const [broker, prefix] = process.argv.slice(2)
const topic = prefix + 'rec'
const group = prefix + 'grp'
let failed = 0

function check (what, ok, why) {
  console.log(ok ? `ok ${what}` : `FAIL ${what}: ${why}`)
  if (!ok) failed++
}

async function offsetsOf (admin, g) {
  const r = await admin.fetchOffsets({ groupId: g, topics: [topic] })
  return r[0].partitions.sort((a, b) => a.partition - b.partition)
    .map(p => Number(p.offset))
}

async function main () {
  const kafka = new Kafka({ clientId: 'kafkajs-records', brokers: [broker],
    logLevel: logLevel.NOTHING, retry: { retries: 2 } })
  const admin = kafka.admin()
  const producer = kafka.producer()
  await admin.connect()
  await producer.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true })
  const msgs = []
  for (let i = 0; i < 10; i++) msgs.push({ value: 'v' + i })
  for (const partition of [0, 1]) {
    await producer.send({ topic, messages: msgs.map(m => ({ ...m, partition })) })
  }

  // kafkajs finds leaders in its metadata cache, which this fills (as
  // against Kafka).
  await admin.fetchTopicOffsets(topic)
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '4' }] })
  let o = await admin.fetchTopicOffsets(topic)
  o = o.sort((a, b) => a.partition - b.partition)
  check('deleteTopicRecords', o[0].low === '4' && o[0].high === '10' &&
    o[1].low === '0', JSON.stringify(o))
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 1, offset: '-1' }] })
  o = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition)
  check('deleteTopicRecords -1', o[1].low === '10', JSON.stringify(o))
  try {
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '99' }] })
    check('deleteTopicRecords past the end', false, 'no error')
  } catch (e) {
    // The retrier wraps the broker's answer as the cause.
    const d = e.cause || e
    const err = d.partitions && d.partitions[0] && d.partitions[0].error
    check('deleteTopicRecords past the end',
      err && err.type === 'OFFSET_OUT_OF_RANGE', e.message + ' ' + (err && err.type))
  }
  o = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition)
  check('deleteTopicRecords past the end changed nothing', o[0].low === '4',
    JSON.stringify(o))

  await admin.setOffsets({ groupId: group, topic,
    partitions: [{ partition: 0, offset: '6' }, { partition: 1, offset: '10' }] })
  let c = await offsetsOf(admin, group)
  check('setOffsets', c[0] === 6 && c[1] === 10, JSON.stringify(c))
  await admin.resetOffsets({ groupId: group, topic, earliest: true })
  c = await offsetsOf(admin, group)
  // -2: kafkajs commits its "earliest" marker, as against Kafka.
  check('resetOffsets earliest', c[0] === -2 && c[1] === -2, JSON.stringify(c))
  await admin.resetOffsets({ groupId: group, topic })
  c = await offsetsOf(admin, group)
  check('resetOffsets latest', c[0] === -1 && c[1] === -1, JSON.stringify(c))
  await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '5' }] })

  const r = await admin.deleteGroups([group])
  check('deleteGroups', r.length === 1 && r[0].errorCode === 0, JSON.stringify(r))
  c = await offsetsOf(admin, group)
  check('deleteGroups offsets gone', c[0] === -1 && c[1] === -1, JSON.stringify(c))
  try {
    await admin.deleteGroups([prefix + 'nosuch'])
    check('deleteGroups unknown', false, 'no error')
  } catch (e) {
    const g = e.groups && e.groups[0]
    check('deleteGroups unknown', g && g.error && g.error.type === 'GROUP_ID_NOT_FOUND',
      e.message)
  }
  await producer.disconnect()
  await admin.disconnect()
}

main().then(() => process.exit(failed ? 1 : 0), e => {
  console.log(`FAIL kafkajs records: ${e.stack}`)
  process.exit(1)
})
