// sarama scenario for tests/compat/run, with sarama's Config.Version set
// to the Kafka version given (sarama before 1.46 does not negotiate: it
// sends the request versions that Kafka version implies):
//
//	sarama_scenario CLIENT KAFKAVERSION caps
//	sarama_scenario CLIENT KAFKAVERSION produce BROKER TOPIC FIRST COUNT CODEC IDEM
//	sarama_scenario CLIENT KAFKAVERSION member BROKER TOPIC GROUP
//
// Built by go_scenario.sh with go_common.go.  The commands and output lines are those of
// tests/compat/run's docstring; records i in [FIRST, FIRST+COUNT) are key
// "k%06d", value "v%06d-CLIENT", headers client=CLIENT and first=FIRST
// (record headers exist from Kafka 0.11: below, caps says "headers no").
//
// What sarama 1.22 allows per version (its config.go and consumer_group.go):
// lz4 from 0.10.0, the idempotent producer from 0.11, consumer groups
// (ConsumerGroup) from 0.10.2.  Below 0.10.2 ("groups no") a member is
// what a sarama program of that era does: a Consumer of every partition,
// its offsets kept in the group by an OffsetManager (OffsetCommit,
// OffsetFetch, no JoinGroup), committed again on SIGTERM.  zstd is offered
// from 2.1, where Kafka has it.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

func codecs(v sarama.KafkaVersion) []string {
	c := []string{"gzip", "snappy"}
	if v.IsAtLeast(sarama.V0_10_0_0) {
		c = append(c, "lz4")
	}
	if v.IsAtLeast(sarama.V2_1_0_0) {
		c = append(c, "zstd")
	}
	return c
}

func caps(v sarama.KafkaVersion) int {
	say("version %s (Kafka %s)", libVersion, v)
	say("codecs %s", strings.Join(codecs(v), " "))
	if v.IsAtLeast(sarama.V0_11_0_0) {
		say("idempotence yes")
	} else {
		say("idempotence no")
		say("headers no")
	}
	if !v.IsAtLeast(sarama.V0_10_2_0) {
		say("groups no")
	}
	return 0
}

func config(name string, v sarama.KafkaVersion) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = v
	cfg.ClientID = name
	cfg.Metadata.Retry.Max = 10
	cfg.Metadata.Retry.Backoff = 200 * time.Millisecond
	return cfg
}

func produce(name string, v sarama.KafkaVersion, broker, topic string, first, count int,
	codec string, idem bool) int {
	cfg := config(name, v)
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.Flush.Frequency = 5 * time.Millisecond
	cfg.Producer.Partitioner = sarama.NewHashPartitioner
	cfg.Producer.Compression = map[string]sarama.CompressionCodec{
		"none": sarama.CompressionNone, "gzip": sarama.CompressionGZIP,
		"snappy": sarama.CompressionSnappy, "lz4": sarama.CompressionLZ4,
		"zstd": sarama.CompressionZSTD}[codec]
	if idem {
		cfg.Producer.Idempotent = true
		cfg.Net.MaxOpenRequests = 1
	}
	p, err := sarama.NewAsyncProducer([]string{broker}, cfg)
	if err != nil {
		say("produce failed: %v", err)
		return 1
	}
	go func() {
		for i := first; i < first+count; i++ {
			m := &sarama.ProducerMessage{Topic: topic,
				Key:   sarama.StringEncoder(fmt.Sprintf("k%06d", i)),
				Value: sarama.StringEncoder(fmt.Sprintf("v%06d-%s", i, name))}
			if v.IsAtLeast(sarama.V0_11_0_0) {
				m.Headers = []sarama.RecordHeader{
					{Key: []byte("client"), Value: []byte(name)},
					{Key: []byte("first"), Value: []byte(strconv.Itoa(first))}}
			}
			p.Input() <- m
		}
	}()
	ok, failed := 0, []string{}
	timeout := time.After(60 * time.Second)
	for ok+len(failed) < count {
		select {
		case <-p.Successes():
			ok++
		case e := <-p.Errors():
			failed = append(failed, e.Err.Error())
		case <-timeout:
			say("produce failed: timed out, %d of %d acknowledged", ok, count)
			return 1
		}
	}
	p.AsyncClose()
	if len(failed) > 0 {
		say("produce failed: %d undelivered, first error: %s", len(failed), failed[0])
		return 1
	}
	say("produced %d", count)
	return 0
}

func record(m *sarama.ConsumerMessage) {
	h := make([]string, 0, len(m.Headers))
	for _, x := range m.Headers {
		h = append(h, string(x.Key)+"="+string(x.Value))
	}
	say("rec %d %d %s %s %s", m.Partition, m.Offset, m.Key, m.Value, strings.Join(h, ","))
}

func sayParts(ps []int32) {
	s := make([]int, len(ps))
	for i, p := range ps {
		s[i] = int(p)
	}
	sayAssigned(s)
}

type handler struct{ topic string }

func (h handler) Setup(s sarama.ConsumerGroupSession) error {
	sayParts(s.Claims()[h.topic])
	return nil
}

func (h handler) Cleanup(s sarama.ConsumerGroupSession) error {
	say("revoked")
	return nil
}

func (h handler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		record(m)
		s.MarkMessage(m, "")
	}
	return nil
}

func member(name string, v sarama.KafkaVersion, broker, topic, group string) int {
	cfg := config(name, v)
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.CommitInterval = 200 * time.Millisecond
	cfg.Consumer.Return.Errors = true
	cfg.Consumer.Group.Session.Timeout = 10 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	ctx := terminated()
	if !v.IsAtLeast(sarama.V0_10_2_0) {
		return plainMember(cfg, ctx, broker, topic, group)
	}
	g, err := sarama.NewConsumerGroup([]string{broker}, group, cfg)
	if err != nil {
		say("error %v", err)
		return 1
	}
	go func() {
		for e := range g.Errors() {
			say("error %v", e)
		}
	}()
	for ctx.Err() == nil {
		if err := g.Consume(ctx, []string{topic}, handler{topic}); err != nil {
			say("error %v", err)
			time.Sleep(200 * time.Millisecond)
		}
	}
	if err := g.Close(); err != nil {
		say("error closing: %v", err)
		return 1
	}
	say("closed")
	return 0
}

// plainMember: every partition, from the offsets the group has committed
// (the oldest when none), marking what it printed; the OffsetManager
// commits every CommitInterval and on Close.
func plainMember(cfg *sarama.Config, ctx context.Context, broker, topic, group string) int {
	cl, err := sarama.NewClient([]string{broker}, cfg)
	if err != nil {
		say("error %v", err)
		return 1
	}
	parts, err := cl.Partitions(topic)
	if err != nil {
		say("error %v", err)
		return 1
	}
	om, err := sarama.NewOffsetManagerFromClient(group, cl)
	if err != nil {
		say("error %v", err)
		return 1
	}
	co, err := sarama.NewConsumerFromClient(cl)
	if err != nil {
		say("error %v", err)
		return 1
	}
	var wg sync.WaitGroup
	var poms []sarama.PartitionOffsetManager
	var pcs []sarama.PartitionConsumer
	for _, p := range parts {
		pom, err := om.ManagePartition(topic, p)
		if err != nil {
			say("error %v", err)
			return 1
		}
		off, _ := pom.NextOffset()
		pc, err := co.ConsumePartition(topic, p, off)
		if err != nil {
			say("error partition %d offset %d: %v", p, off, err)
			return 1
		}
		poms, pcs = append(poms, pom), append(pcs, pc)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for m := range pc.Messages() {
				record(m)
				pom.MarkOffset(m.Offset+1, "")
			}
		}()
		go func() {
			defer wg.Done()
			for e := range pc.Errors() {
				say("error %v", e)
			}
		}()
	}
	sayParts(parts)
	<-ctx.Done()
	for _, pc := range pcs {
		pc.AsyncClose()
	}
	wg.Wait()
	rc := 0
	for _, pom := range poms {
		if err := pom.Close(); err != nil {
			say("error committing: %v", err)
			rc = 1
		}
	}
	if err := om.Close(); err != nil {
		say("error committing: %v", err)
		rc = 1
	}
	co.Close()
	cl.Close()
	say("closed")
	return rc
}

func usage() int {
	fmt.Fprintln(os.Stderr, "usage: sarama_scenario CLIENT KAFKAVERSION caps | produce BROKER TOPIC FIRST COUNT CODEC IDEM | member BROKER TOPIC GROUP")
	return 2
}

func run(a []string) int {
	if len(a) < 3 {
		return usage()
	}
	name := a[0]
	v, err := sarama.ParseKafkaVersion(a[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	switch {
	case a[2] == "caps" && len(a) == 3:
		return caps(v)
	case a[2] == "produce" && len(a) == 9:
		first, e1 := strconv.Atoi(a[5])
		count, e2 := strconv.Atoi(a[6])
		if e1 != nil || e2 != nil {
			return usage()
		}
		return produce(name, v, a[3], a[4], first, count, a[7], a[8] == "1")
	case a[2] == "member" && len(a) == 6:
		return member(name, v, a[3], a[4], a[5])
	}
	return usage()
}

func main() {
	os.Exit(run(os.Args[1:]))
}
