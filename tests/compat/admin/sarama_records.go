// sarama 1.22's ClusterAdmin.DeleteRecords (Kafka's DeleteRecords v0),
// and its Broker.DeleteGroups (DeleteGroups v0: 1.22's ClusterAdmin has
// no DeleteConsumerGroup yet), against Flume.
//
//	sarama_records BROKER PREFIX    (tests/compat/admin/run)
package main

import (
	"fmt"
	"os"

	"github.com/Shopify/sarama"
)

var failed int

func check(what string, ok bool, why string) {
	if ok {
		fmt.Printf("ok %s\n", what)
	} else {
		fmt.Printf("FAIL %s: %s\n", what, why)
		failed++
	}
}

func main() {
	broker, prefix := os.Args[1], os.Args[2]
	topic := prefix + "rec"
	group := prefix + "grp"
	conf := sarama.NewConfig()
	conf.Version = sarama.V2_1_0_0
	conf.ClientID = "sarama-records"
	conf.Producer.Return.Successes = true
	conf.Producer.Partitioner = sarama.NewManualPartitioner
	client, err := sarama.NewClient([]string{broker}, conf)
	if err != nil {
		fmt.Printf("FAIL sarama client: %v\n", err)
		os.Exit(1)
	}
	defer client.Close()
	admin, err := sarama.NewClusterAdmin([]string{broker}, conf)
	if err != nil {
		fmt.Printf("FAIL sarama admin: %v\n", err)
		os.Exit(1)
	}
	defer admin.Close()
	err = admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 1,
		ReplicationFactor: 1}, false)
	check("CreateTopic", err == nil, fmt.Sprint(err))
	producer, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		fmt.Printf("FAIL sarama producer: %v\n", err)
		os.Exit(1)
	}
	for i := 0; i < 10; i++ {
		_, _, err = producer.SendMessage(&sarama.ProducerMessage{Topic: topic,
			Partition: 0, Value: sarama.StringEncoder(fmt.Sprint(i))})
		if err != nil {
			fmt.Printf("FAIL produce: %v\n", err)
			os.Exit(1)
		}
	}
	oldest := func() int64 {
		o, err := client.GetOffset(topic, 0, sarama.OffsetOldest)
		if err != nil {
			return -100
		}
		return o
	}

	err = admin.DeleteRecords(topic, map[int32]int64{0: 7})
	o := oldest()
	check("DeleteRecords", err == nil && o == 7, fmt.Sprint(err, " oldest ", o))
	// sarama returns no partition error; the start must not move.
	err = admin.DeleteRecords(topic, map[int32]int64{0: 50})
	o = oldest()
	check("DeleteRecords past the end changes nothing", err == nil && o == 7,
		fmt.Sprint(err, " oldest ", o))

	// An empty group with a committed offset (a simple consumer's commit).
	coord, err := client.Coordinator(group)
	if err != nil {
		fmt.Printf("FAIL coordinator: %v\n", err)
		os.Exit(1)
	}
	oc := &sarama.OffsetCommitRequest{Version: 2, ConsumerGroup: group,
		ConsumerGroupGeneration: -1}
	oc.AddBlock(topic, 0, 8, 0, "")
	_, err = coord.CommitOffset(oc)
	check("OffsetCommit", err == nil, fmt.Sprint(err))
	dg, err := coord.DeleteGroups(&sarama.DeleteGroupsRequest{Groups: []string{group,
		prefix + "nosuch"}})
	ok := err == nil && dg != nil && dg.GroupErrorCodes[group] == sarama.ErrNoError &&
		dg.GroupErrorCodes[prefix+"nosuch"] == sarama.KError(69)
	check("DeleteGroups", ok, fmt.Sprint(err, dg))
	of, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0}})
	off := int64(-100)
	if err == nil {
		if b := of.GetBlock(topic, 0); b != nil {
			off = b.Offset
		}
	}
	check("DeleteGroups offsets gone", off == -1, fmt.Sprint(err, " offset ", off))
	producer.Close()
	if failed > 0 {
		os.Exit(1)
	}
}
