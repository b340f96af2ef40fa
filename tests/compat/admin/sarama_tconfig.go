// sarama (Debian's 1.22) ClusterAdmin against Flume: topic settings
// (issue 27).  sarama_tconfig BROKER PREFIX: CreateTopic with config
// entries, ListTopics (which calls DescribeConfigs for every topic),
// DescribeConfig and AlterConfig (in force at once), a bad value refused
// naming the key.  One line per check; exit 0 only if all passed.
// Built alone in GOPATH mode against /usr/share/gocode.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/Shopify/sarama"
)

var failed int

func check(name string, ok bool, why string) {
	if ok {
		fmt.Println("ok " + name)
		return
	}
	failed++
	fmt.Printf("FAIL %s: %s\n", name, why)
}

func describe(admin sarama.ClusterAdmin, topic string) map[string]sarama.ConfigEntry {
	out := map[string]sarama.ConfigEntry{}
	entries, err := admin.DescribeConfig(sarama.ConfigResource{
		Type: sarama.TopicResource, Name: topic})
	if err != nil {
		check("DescribeConfig", false, err.Error())
		return out
	}
	for _, e := range entries {
		out[e.Name] = e
	}
	return out
}

func main() {
	broker, prefix := os.Args[1], os.Args[2]
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V2_1_0_0
	cfg.ClientID = "flume-compat"
	admin, err := sarama.NewClusterAdmin([]string{broker}, cfg)
	if err != nil {
		fmt.Printf("FAIL connect: %v\n", err)
		os.Exit(1)
	}
	defer admin.Close()
	topic := prefix + "-cfg"
	ret := "3600000"
	err = admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 1,
		ReplicationFactor: 1,
		ConfigEntries:     map[string]*string{"retention.ms": &ret}}, false)
	check("CreateTopic with config entries", err == nil, fmt.Sprint(err))

	topics, err := admin.ListTopics()
	if err != nil {
		check("ListTopics", false, err.Error())
	} else {
		d, found := topics[topic]
		v := d.ConfigEntries["retention.ms"]
		check("ListTopics", found && d.NumPartitions == 1 && v != nil &&
			*v == "3600000", fmt.Sprint(found, d.NumPartitions, v))
	}

	// The broker's own: what a topic without its own value has.  Kafka's
	// BROKER type is 4, sarama 1.22's ClusterResource (its BrokerResource
	// is 5, KIP-133's draft numbering, which Kafka refuses too).
	bent, err := admin.DescribeConfig(sarama.ConfigResource{
		Type: sarama.ClusterResource, Name: "0"})
	bconf := map[string]sarama.ConfigEntry{}
	for _, e := range bent {
		bconf[e.Name] = e
	}
	check("DescribeConfig broker", err == nil &&
		bconf["log.retention.ms"].ReadOnly, fmt.Sprint(err))

	c := describe(admin, topic)
	check("DescribeConfig", c["retention.ms"].Value == "3600000" &&
		c["cleanup.policy"].Value == "delete" &&
		c["segment.bytes"].Value == bconf["log.segment.bytes"].Value,
		fmt.Sprint(c["retention.ms"], c["cleanup.policy"]))

	pol := "compact"
	err = admin.AlterConfig(sarama.TopicResource, topic,
		map[string]*string{"cleanup.policy": &pol}, false)
	check("AlterConfig", err == nil, fmt.Sprint(err))
	c = describe(admin, topic)
	check("AlterConfig in force", c["cleanup.policy"].Value == "compact" &&
		c["retention.ms"].Value == bconf["log.retention.ms"].Value,
		fmt.Sprint(c["cleanup.policy"], c["retention.ms"]))

	bad := "sometimes"
	err = admin.AlterConfig(sarama.TopicResource, topic,
		map[string]*string{"unclean.leader.election.enable": &bad}, false)
	check("AlterConfig bad value refused", err != nil &&
		strings.Contains(err.Error(), "unclean.leader.election.enable"),
		fmt.Sprint(err))
	c = describe(admin, topic)
	check("bad value changed nothing", c["cleanup.policy"].Value == "compact",
		c["cleanup.policy"].Value)
	if failed > 0 {
		os.Exit(1)
	}
}
