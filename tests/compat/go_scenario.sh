#!/bin/sh
# The Go clients' scenarios for tests/compat/run (the commands and output
# lines are those of its docstring):
#   go_scenario.sh PROGRAM CLIENT [ARG] caps
#   go_scenario.sh PROGRAM CLIENT [ARG] produce BROKER TOPIC FIRST COUNT CODEC IDEM
#   go_scenario.sh PROGRAM CLIENT [ARG] member BROKER TOPIC GROUP
# PROGRAM is sarama or kafka_go (tests/compat/PROGRAM_scenario.go, built
# with go_common.go), CLIENT
# the name tests/compat/run knows the client by (in values and headers),
# ARG what the program takes before the command (sarama: the Kafka version
# its Config.Version is set to).
# The program is built on first use (again when its source is newer) into
# $FLUME_BUILD/compat-go (build/ by default), in GOPATH mode against
# Debian's packaged Go libraries (golang-github-shopify-sarama-dev,
# golang-github-segmentio-kafka-go-dev under /usr/share/gocode); the
# library's Debian version is linked in for the caps line; the build's
# output (cgo warnings) goes to compat-go/PROGRAM.log, shown if it fails.
set -e
here=$(cd "$(dirname "$0")" && pwd)
prog=$1
shift
src=$here/${prog}_scenario.go
case $prog in
sarama) pkg=golang-github-shopify-sarama-dev ;;
kafka_go) pkg=golang-github-segmentio-kafka-go-dev ;;
*) echo "go_scenario.sh: unknown program $prog" >&2; exit 2 ;;
esac
out=${FLUME_BUILD:-$here/../../build}/compat-go
# go wants GOCACHE absolute; make check passes FLUME_BUILD relative.
case $out in /*) ;; *) out=$PWD/$out ;; esac
bin=$out/${prog}_scenario
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$here/go_common.go" -nt "$bin" ]; then
	mkdir -p "$out"
	libv=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null | sed 's/-[^-]*$//')
	tmp=$bin.tmp.$$
	# GOPATH mode: Debian's libraries, no module download.
	GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE=$out/cache \
	    nice -n 10 go build -ldflags "-X main.libVersion=${libv:-unknown}" \
	    -o "$tmp" "$src" "$here/go_common.go" >"$out/$prog.log" 2>&1 ||
	    { cat "$out/$prog.log" >&2; rm -f "$tmp"; exit 1; }
	mv -f "$tmp" "$bin"    # atomic: a concurrent caller sees old or new
fi
exec "$bin" "$@"
