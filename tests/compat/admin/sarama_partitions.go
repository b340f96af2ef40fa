// sarama ClusterAdmin.CreatePartitions against a running broker:
//
//	sarama_partitions BROKER PREFIX
//
// Built alone in GOPATH mode against Debian's sarama 1.22
// (GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= go build FILE).
// Grows PREFIX-grow from 3 to 5 partitions, then to 6 with a manual
// assignment naming broker 0 (accepted), refuses one naming broker 1
// (INVALID_REPLICA_ASSIGNMENT), a decrease, the same count and an unknown
// topic with Kafka's errors, and checks the count through
// DescribeTopics.  (sarama 1.22 drops CreatePartitions' validateOnly: it
// never reaches the request.)  Prints "ok NAME" or "FAIL NAME: why" per
// check; exits 0 only if all passed.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/Shopify/sarama"
)

var failed int

func check(name string, ok bool, why interface{}) {
	if ok {
		fmt.Println("ok " + name)
		return
	}
	failed++
	fmt.Printf("FAIL %s: %v\n", name, why)
}

// The Kafka error of a refused call, ErrNoError when it succeeded.
func kerr(err error) sarama.KError {
	if err == nil {
		return sarama.ErrNoError
	}
	if te, ok := err.(*sarama.TopicPartitionError); ok {
		return te.Err
	}
	if ke, ok := err.(sarama.KError); ok {
		return ke
	}
	return sarama.ErrUnknown
}

func count(admin sarama.ClusterAdmin, topic string) int {
	md, err := admin.DescribeTopics([]string{topic})
	if err != nil || len(md) != 1 || md[0].Err != sarama.ErrNoError {
		return -1
	}
	return len(md[0].Partitions)
}

func main() {
	broker, prefix := os.Args[1], os.Args[2]
	topic := prefix + "-grow"
	conf := sarama.NewConfig()
	conf.Version = sarama.V1_0_0_0
	conf.Admin.Timeout = 15 * time.Second
	admin, err := sarama.NewClusterAdmin([]string{broker}, conf)
	if err != nil {
		fmt.Println("FAIL connect:", err)
		os.Exit(1)
	}
	defer admin.Close()
	err = admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 3,
		ReplicationFactor: 1}, false)
	check("created with 3", err == nil && count(admin, topic) == 3, err)

	err = admin.CreatePartitions(topic, 5, nil, false)
	check("CreatePartitions 3 -> 5", err == nil, err)
	check("metadata says 5", count(admin, topic) == 5, count(admin, topic))

	err = admin.CreatePartitions(topic, 7, [][]int32{{1}, {1}}, false)
	check("assignment to broker 1 is INVALID_REPLICA_ASSIGNMENT",
		kerr(err) == sarama.ErrInvalidReplicaAssignment, err)
	err = admin.CreatePartitions(topic, 6, [][]int32{{0}}, false)
	check("assignment to broker 0: 5 -> 6", err == nil, err)
	check("metadata says 6", count(admin, topic) == 6, count(admin, topic))

	err = admin.CreatePartitions(topic, 6, nil, false)
	check("same count is INVALID_PARTITIONS",
		kerr(err) == sarama.ErrInvalidPartitions, err)
	err = admin.CreatePartitions(topic, 2, nil, false)
	check("decrease is INVALID_PARTITIONS",
		kerr(err) == sarama.ErrInvalidPartitions, err)
	err = admin.CreatePartitions(prefix+"-missing", 4, nil, false)
	check("unknown topic is UNKNOWN_TOPIC_OR_PARTITION",
		kerr(err) == sarama.ErrUnknownTopicOrPartition, err)
	check("still 6 after the refusals", count(admin, topic) == 6,
		count(admin, topic))
	if failed > 0 {
		os.Exit(1)
	}
}
