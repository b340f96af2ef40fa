// sarama 1.22's ClusterAdmin.DescribeCluster and Client.Controller (Metadata
// requests in this version; 1.22 has no DescribeLogDirs): the one broker
// and the controller DescribeCluster answers too.
//
//	sarama_describe BROKER PREFIX    (tests/compat/admin/run)
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
		return
	}
	fmt.Printf("FAIL %s: %s\n", what, why)
	failed++
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sarama_describe BROKER PREFIX")
		os.Exit(2)
	}
	broker := os.Args[1]
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V2_1_0_0
	cfg.ClientID = "admin-compat"
	admin, err := sarama.NewClusterAdmin([]string{broker}, cfg)
	if err != nil {
		check("connect", false, err.Error())
		os.Exit(1)
	}
	defer admin.Close()
	brokers, controller, err := admin.DescribeCluster()
	if err != nil {
		check("DescribeCluster", false, err.Error())
		os.Exit(1)
	}
	check("DescribeCluster brokers", len(brokers) == 1 &&
		brokers[0].ID() == 0 && brokers[0].Addr() == broker,
		fmt.Sprintf("%d brokers", len(brokers)))
	// 1.22 asks Metadata v0 here, which carries no controller: -1, as
	// with any Kafka broker.  The controller it found first is node 0.
	check("DescribeCluster controller", controller == -1,
		fmt.Sprintf("controller %d", controller))
	client, err := sarama.NewClient([]string{broker}, cfg)
	if err != nil {
		check("Controller", false, err.Error())
		os.Exit(1)
	}
	defer client.Close()
	ctl, err := client.Controller()
	check("Controller", err == nil && ctl.ID() == 0 && ctl.Addr() == broker,
		fmt.Sprintf("%v", err))
	if failed > 0 {
		os.Exit(1)
	}
}
