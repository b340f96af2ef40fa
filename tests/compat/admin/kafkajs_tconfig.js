#!/usr/bin/env node
// kafkajs 2.2.4 admin against Flume: topic settings (issue 27).
//   kafkajs_tconfig.js BROKER PREFIX
// createTopics with configEntries, describeConfigs (values and sources),
// alterConfigs (in force at once), a bad value refused naming the key.
// One line per check; exit 0 only if all passed.  kafkajs comes from
// scripts/install-kafkajs (NODE_PATH).
'use strict';
const { Kafka, ConfigResourceTypes, logLevel } = require('kafkajs');

const [broker, prefix] = process.argv.slice(2);
let failed = 0;

function check(name, ok, why) {
  if (ok)
    console.log('ok ' + name);
  else {
    failed++;
    console.log('FAIL ' + name + ': ' + why);
  }
}

async function describe(admin, topic) {
  const r = await admin.describeConfigs({ includeSynonyms: true,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
  const out = {};
  for (const e of r.resources[0].configEntries)
    out[e.configName] = e;
  return out;
}

async function main() {
  const kafka = new Kafka({ clientId: 'flume-compat', brokers: [broker],
    logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const admin = kafka.admin();
  await admin.connect();
  const topic = prefix + '-cfg';
  // The broker's own: what a topic without its own value has.
  const b = await admin.describeConfigs({ includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.BROKER, name: '0' }] });
  const bret = b.resources[0].configEntries.find(
    (e) => e.configName === 'log.retention.ms');
  check('describeConfigs broker', bret !== undefined && bret.readOnly,
    JSON.stringify(bret));
  try {
    const made = await admin.createTopics({ waitForLeaders: false,
      topics: [{ topic, numPartitions: 1, replicationFactor: 1,
        configEntries: [{ name: 'retention.ms', value: '3600000' },
          { name: 'max.message.bytes', value: '200000' }] }] });
    check('createTopics with configEntries', made === true, String(made));
  } catch (e) {
    check('createTopics with configEntries', false, e.message);
  }
  try {
    const c = await describe(admin, topic);
    check('describeConfigs values', c['retention.ms'].configValue ===
      '3600000' && c['max.message.bytes'].configValue === '200000' &&
      c['cleanup.policy'].configValue === 'delete',
      JSON.stringify([c['retention.ms'], c['cleanup.policy']]));
    check('describeConfigs sources', c['retention.ms'].configSource === 1 &&
      c['cleanup.policy'].configSource === 5 &&
      // Its own, flume.conf's when it sets one, the default.
      c['retention.ms'].configSynonyms.length ===
      (bret.configSource === 4 ? 3 : 2) &&
      c['retention.ms'].configSynonyms[0].configSource === 1,
      JSON.stringify(c['retention.ms']));
  } catch (e) {
    check('describeConfigs', false, e.message);
  }
  try {
    await admin.alterConfigs({ validateOnly: false, resources: [{
      type: ConfigResourceTypes.TOPIC, name: topic,
      configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] });
    const c = await describe(admin, topic);
    check('alterConfigs in force', c['cleanup.policy'].configValue ===
      'compact' && c['retention.ms'].configValue === bret.configValue &&
      c['retention.ms'].configSource === bret.configSource,
      JSON.stringify([c['cleanup.policy'], c['retention.ms']]));
  } catch (e) {
    check('alterConfigs', false, e.message);
  }
  try {
    await admin.alterConfigs({ validateOnly: false, resources: [{
      type: ConfigResourceTypes.TOPIC, name: topic,
      configEntries: [{ name: 'no.such.key', value: '1' }] }] });
    check('alterConfigs unknown key refused', false, 'accepted');
  } catch (e) {
    // kafkajs throws the code's own description: the broker's message
    // naming the key is dropped by its response parser.
    check('alterConfigs unknown key refused', e.type === 'INVALID_CONFIG',
      e.type + ' ' + e.message);
  }
  const c = await describe(admin, topic);
  check('bad key changed nothing', c['cleanup.policy'].configValue ===
    'compact', c['cleanup.policy'].configValue);
  await admin.disconnect();
}

main().then(() => process.exit(failed ? 1 : 0), (e) => {
  console.log('FAIL kafkajs: ' + e.message);
  process.exit(1);
});
