// kafka-go scenario for tests/compat/run: a Writer produces, a Reader in a
// consumer group (GroupID) is a member.
//
//	kafka_go_scenario CLIENT caps
//	kafka_go_scenario CLIENT produce BROKER TOPIC FIRST COUNT CODEC IDEM
//	kafka_go_scenario CLIENT member BROKER TOPIC GROUP
//
// Built by go_scenario.sh with go_common.go.  The commands and output lines are those of
// tests/compat/run's docstring; records i in [FIRST, FIRST+COUNT) are key
// "k%06d", value "v%06d-CLIENT".  kafka-go 0.2 writes magic-1 message sets,
// which have no headers (caps says "headers no"), and has no idempotent
// producer.  Its Reader has no rebalance callback: the member reads its
// assignments from the Reader's log lines ("rebalancing consumer group",
// "subscribed to partitions: map[P:OFFSET ...]").
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/gzip"
	"github.com/segmentio/kafka-go/lz4"
	"github.com/segmentio/kafka-go/snappy"
)

func caps() int {
	say("version %s", libVersion)
	say("codecs gzip snappy lz4")
	say("idempotence no")
	say("headers no")
	return 0
}

func produce(name, broker, topic string, first, count int, codec string) int {
	cfg := kafka.WriterConfig{Brokers: []string{broker}, Topic: topic,
		Balancer: &kafka.Hash{}, RequiredAcks: -1, BatchSize: 100,
		BatchTimeout: 5 * time.Millisecond, MaxAttempts: 5,
		ErrorLogger: log.New(os.Stdout, "writer: ", 0)}
	switch codec {
	case "gzip":
		cfg.CompressionCodec = gzip.NewCompressionCodec()
	case "snappy":
		cfg.CompressionCodec = snappy.NewCompressionCodec()
	case "lz4":
		cfg.CompressionCodec = lz4.NewCompressionCodec()
	case "none":
	default:
		say("produce failed: no codec %s", codec)
		return 1
	}
	w := kafka.NewWriter(cfg)
	msgs := make([]kafka.Message, 0, count)
	for i := first; i < first+count; i++ {
		msgs = append(msgs, kafka.Message{Key: []byte(fmt.Sprintf("k%06d", i)),
			Value: []byte(fmt.Sprintf("v%06d-%s", i, name))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := w.WriteMessages(ctx, msgs...)
	w.Close()
	if err != nil {
		say("produce failed: %v", err)
		return 1
	}
	say("produced %d", count)
	return 0
}

// assignLog turns the Reader's log lines into "revoked" and "assigned" lines.
type assignLog struct{}

var subscribed = regexp.MustCompile(`subscribed to partitions: map\[(.*)\]`)

func (assignLog) Write(b []byte) (int, error) {
	line := string(b)
	if strings.Contains(line, "rebalancing consumer group") {
		say("revoked")
	} else if m := subscribed.FindStringSubmatch(line); m != nil {
		var ps []int
		for _, kv := range strings.Fields(m[1]) {
			if p, err := strconv.Atoi(strings.SplitN(kv, ":", 2)[0]); err == nil {
				ps = append(ps, p)
			}
		}
		sayAssigned(ps)
	}
	return len(b), nil
}

func member(broker, topic, group string) int {
	ctx := terminated()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{broker},
		GroupID: group, Topic: topic, MinBytes: 1, MaxBytes: 10 << 20,
		MaxWait: 200 * time.Millisecond, HeartbeatInterval: 500 * time.Millisecond,
		SessionTimeout: 10 * time.Second, CommitInterval: 0,
		Logger: log.New(assignLog{}, "", 0), ErrorLogger: log.New(os.Stdout, "error ", 0)})
	var pending []kafka.Message
	commit := func() int {
		if len(pending) == 0 {
			return 0
		}
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := r.CommitMessages(cctx, pending...); err != nil {
			say("error commit: %v", err)
			return 1
		}
		pending = pending[:0]
		return 0
	}
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		m, err := r.FetchMessage(fctx)
		cancel()
		if err == nil {
			say("rec %d %d %s %s ", m.Partition, m.Offset, m.Key, m.Value)
			pending = append(pending, m)
			if len(pending) < 200 {
				continue
			}
		} else if ctx.Err() == nil && err != context.DeadlineExceeded {
			say("error %v", err)
			time.Sleep(100 * time.Millisecond)
		}
		commit()
	}
	rc := commit()
	if err := r.Close(); err != nil {
		say("error closing: %v", err)
		rc = 1
	}
	say("closed")
	return rc
}

func usage() int {
	fmt.Fprintln(os.Stderr, "usage: kafka_go_scenario CLIENT caps | produce BROKER TOPIC FIRST COUNT CODEC IDEM | member BROKER TOPIC GROUP")
	return 2
}

func main() {
	a := os.Args[1:]
	rc := 2
	switch {
	case len(a) == 2 && a[1] == "caps":
		rc = caps()
	case len(a) == 8 && a[1] == "produce":
		first, e1 := strconv.Atoi(a[4])
		count, e2 := strconv.Atoi(a[5])
		if e1 != nil || e2 != nil || a[7] == "1" {
			rc = usage()
			break
		}
		rc = produce(a[0], a[2], a[3], first, count, a[6])
	case len(a) == 5 && a[1] == "member":
		rc = member(a[2], a[3], a[4])
	default:
		rc = usage()
	}
	os.Exit(rc)
}
