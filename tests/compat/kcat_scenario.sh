#!/bin/sh
# kcat scenario for tests/compat/run (the commands and output lines are
# those of its docstring):
#   kcat_scenario.sh caps
#   kcat_scenario.sh produce BROKER TOPIC FIRST COUNT CODEC IDEM
#   kcat_scenario.sh member BROKER TOPIC GROUP
# kcat sets headers per invocation (-H), so every record of one produce
# carries the same client= and first= headers, as with the other clients.
# A member is kcat -G: librdkafka's auto-commit, and its close on SIGTERM
# commits what it printed; its rebalance lines ("assigned: t [0], ...")
# go to the same output, where the driver reads them.
set -e
KCAT=${KCAT:-/usr/bin/kcat}
case "${1:-}" in
caps)
	v=$("$KCAT" -V 2>&1 | sed -n 's/^Version \([^ ]*\) .*librdkafka \([^ ]*\) .*/\1 (librdkafka \2)/p')
	echo "version $v"
	echo "codecs gzip snappy lz4 zstd"
	echo "idempotence yes"
	# librdkafka's rule, as in confluent_kafka_scenario.py.
	for c in gzip snappy lz4; do echo "needs $c Produce 0"; done
	echo "needs zstd Produce 0 Produce 7 Fetch 10"
	;;
produce)
	[ $# -eq 7 ] || { echo "usage: $0 produce BROKER TOPIC FIRST COUNT CODEC IDEM" >&2; exit 2; }
	first=$4; count=$5
	idem=false; [ "$7" = 1 ] && idem=true
	awk -v f="$first" -v n="$count" 'BEGIN {
		for (i = f; i < f + n; i++) printf "k%06d:v%06d-kcat\n", i, i }' |
	    "$KCAT" -P -b "$2" -t "$3" -K: -X "compression.codec=$6" -H client=kcat -H "first=$first" \
	    -X acks=all -X enable.idempotence=$idem -X linger.ms=5
	# kcat -P exits non-zero when a message was not delivered.
	echo "produced $count"
	;;
member)
	[ $# -eq 4 ] || { echo "usage: $0 member BROKER TOPIC GROUP" >&2; exit 2; }
	exec "$KCAT" -u -b "$2" -G "$4" -X auto.offset.reset=earliest \
	    -X session.timeout.ms=10000 -X heartbeat.interval.ms=500 \
	    -f 'rec %p %o %k %s %h\n' "$3" 2>&1
	;;
*)
	echo "usage: $0 caps | produce ... | member ..." >&2
	exit 2
	;;
esac
