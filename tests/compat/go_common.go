// What the Go scenario programs share (go_scenario.sh builds each
// PROGRAM_scenario.go together with this file): output lines, the
// "assigned" line, SIGTERM as a context.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// libVersion: the client library's Debian version, set by go_scenario.sh.
var libVersion = "unknown"

var outMu sync.Mutex

// say prints one whole line (members print from several goroutines).
func say(format string, args ...interface{}) {
	outMu.Lock()
	fmt.Fprintf(os.Stdout, format+"\n", args...)
	outMu.Unlock()
}

// sayAssigned prints "assigned P,P..." in order, or "assigned -".
func sayAssigned(ps []int) {
	sort.Ints(ps)
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	if len(s) == 0 {
		s = []string{"-"}
	}
	say("assigned %s", strings.Join(s, ","))
}

// terminated is cancelled by SIGTERM or SIGINT.
func terminated() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-ch; cancel() }()
	return ctx
}
