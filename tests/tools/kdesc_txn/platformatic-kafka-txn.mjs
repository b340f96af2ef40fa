// @platformatic/kafka 1.20.0's transaction requests, sent raw (it has
// no transactional producer): for kdesc_capture.py, which records them
//   platformatic-kafka-txn 127.0.0.1:PORT
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
// An ES module: imported by path from NODE_PATH.
const lib = join(process.env.NODE_PATH, '@platformatic', 'kafka')
const { Connection, findCoordinatorV6, initProducerIdV5, addPartitionsToTxnV5,
  addOffsetsToTxnV4, txnOffsetCommitV4, endTxnV4, describeTransactionsV0,
  listTransactionsV1 } = await import(pathToFileURL(join(lib, 'dist', 'index.js')).href)
const [host, port] = process.argv[2].split(':')
// One connection per request: nothing answers them, and a connection
// holds only so many in flight.
async function conn () {
  const c = new Connection('platformatic-kafka-txn')
  await c.connect(host, Number(port))
  return c
}
const none = () => {}
let c = await conn()
findCoordinatorV6.api(c, 1, ['cap-tx', 'cap-tx2'], none)
c = await conn()
initProducerIdV5.api(c, 'cap-tx', 60000, -1n, -1, none)
c = await conn()
addPartitionsToTxnV5.api(c, [{ transactionalId: 'cap-tx', producerId: 1000n, producerEpoch: 0,
  verifyOnly: false, topics: [{ name: 't', partitions: [0, 1] }] }], none)
c = await conn()
addOffsetsToTxnV4.api(c, 'cap-tx', 1000n, 0, 'grp', none)
c = await conn()
txnOffsetCommitV4.api(c, 'cap-tx', 'grp', 1000n, 0, 3, 'm-1', 'inst-1',
  [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1,
    committedMetadata: 'md' }] }], none)
c = await conn()
endTxnV4.api(c, 'cap-tx', 1000n, 0, true, none)
c = await conn()
describeTransactionsV0.api(c, ['cap-tx'], none)
c = await conn()
listTransactionsV1.api(c, ['Ongoing'], [1000n], 1000n, none)
setTimeout(() => process.exit(0), 1500)
