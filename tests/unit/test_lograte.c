/*
 * The per-address log limiter (worker/lograte.h) and its table
 * (worker/addrtab.h): one line per address and kind per interval, the
 * next one counting those not logged, other addresses and kinds on
 * their own, the burst cap over all addresses, interval 0 logging all,
 * and a full table taking over its least recently used entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/log.h"
#include "tests/harness.h"
#include "worker/addrtab.h"
#include "worker/lograte.h"
#include "worker/worker.h"

static char	*tmpdir;
static char	 lpath[4096];
static char	 out[1 << 16];
static struct config conf;
static struct worker w;

static int
setup(void)
{
	tmpdir = test_mkdtemp("lograte");
	snprintf(lpath, sizeof(lpath), "%s/stderr", tmpdir);
	log_init(0, LOG_LVL_INFO, "worker 0");
	w.conf = &conf;
	return 0;
}

static int
teardown(void)
{
	test_rmtree(tmpdir);
	free(tmpdir);
	return 0;
}

static void
capture_begin(void)
{
	CU_ASSERT_FATAL(test_capture_begin(lpath) == 0);
	lograte_reset();
	conf.client_log_interval_ms = 60000;
	w.now = 1000000;
}

/* Restore stderr; the lines written, counted. */
static int
capture_end(void)
{
	int lines = 0;
	char *p;

	CU_ASSERT_FATAL(test_capture_end(lpath, out, sizeof(out)) >= 0);
	for (p = out; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	return lines;
}

static int
count(const char *needle)
{
	const char *p = out;
	int n = 0;

	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static void
test_addr(void)
{
	char a[ADDRTAB_ADDR_MAX];

	addrtab_addr("127.0.0.1:5555", a);
	CU_ASSERT_STRING_EQUAL(a, "127.0.0.1");
	addrtab_addr("[::1]:5555", a);
	CU_ASSERT_STRING_EQUAL(a, "::1");
	addrtab_addr("[fe80::1%eth0]:9", a);
	CU_ASSERT_STRING_EQUAL(a, "fe80::1%eth0");
	addrtab_addr("unix", a);
	CU_ASSERT_STRING_EQUAL(a, "unix");
}

static void
test_once_a_minute(void)
{
	int i;

	capture_begin();
	for (i = 0; i < 300; i++) {
		lograte_warnx(&w, "127.0.0.1:4000", LOGRATE_REFUSED,
		    "Kafka %s v%d", "DeleteRecords", i);
		w.now += 100;		/* 300 in 30 s */
	}
	/* Another address and another kind: their own lines. */
	lograte_warnx(&w, "127.0.0.2:4000", LOGRATE_REFUSED, "second");
	lograte_warnx(&w, "127.0.0.1:4001", LOGRATE_AUTH, "auth");
	w.now = 1000000 + 60000;
	lograte_warnx(&w, "127.0.0.1:4002", LOGRATE_REFUSED, "Kafka %s v%d",
	    "DeleteRecords", 7);
	lograte_warnx(&w, "127.0.0.1:4002", LOGRATE_REFUSED, "not logged");
	CU_ASSERT_EQUAL(capture_end(), 4);
	CU_ASSERT_EQUAL(count("127.0.0.1:4000: Kafka DeleteRecords v0\n"), 1);
	CU_ASSERT_EQUAL(count("127.0.0.2:4000: second\n"), 1);
	CU_ASSERT_EQUAL(count("127.0.0.1:4001: auth\n"), 1);
	CU_ASSERT_EQUAL(count("127.0.0.1:4002: Kafka DeleteRecords v7 (and "
	    "299 more from 127.0.0.1 in the last 60 s, not logged)\n"), 1);
	/* The last one was not: only the count says "not logged". */
	CU_ASSERT_EQUAL(count(": not logged\n"), 0);
}

static void
test_every_one_with_zero(void)
{
	int i;

	capture_begin();
	conf.client_log_interval_ms = 0;
	for (i = 0; i < 100; i++)
		lograte_warnx(&w, "127.0.0.1:4000", LOGRATE_REFUSED, "x %d", i);
	CU_ASSERT_EQUAL(capture_end(), 100);
	CU_ASSERT_EQUAL(count(": x 99\n"), 1);
}

/* Many addresses: LOGRATE_BURST lines a minute, then counted. */
static void
test_burst(void)
{
	char peer[64];
	int i;

	capture_begin();
	for (i = 0; i < 5000; i++) {
		snprintf(peer, sizeof(peer), "10.%d.%d.1:80", i / 256, i % 256);
		lograte_warnx(&w, peer, LOGRATE_REFUSED, "bad");
	}
	w.now += 60000;
	/* At INFO, the same limits. */
	lograte_info(&w, "10.200.0.1:80", LOGRATE_REFUSED, "later");
	lograte_info(&w, "10.200.0.1:80", LOGRATE_REFUSED, "not logged");
	CU_ASSERT_EQUAL(capture_end(), LOGRATE_BURST + 1);
	CU_ASSERT_EQUAL(count(": bad\n"), LOGRATE_BURST);
	CU_ASSERT_EQUAL(count(" INFO [worker 0 "), 1);
	CU_ASSERT_EQUAL(count("] 10.200.0.1:80: later (and 4940 more from "
	    "other addresses, not logged)\n"), 1);
}

struct tentry {
	struct addr_slot slot;
	int		 n;
};

/* A full bucket gives its least recently used entry to a new address. */
static void
test_table_evicts_lru(void)
{
	static struct tentry tab[ADDRTAB_WAYS];	/* one bucket */
	struct tentry *e;
	char a[32];
	int i;

	for (i = 0; i < ADDRTAB_WAYS; i++) {
		snprintf(a, sizeof(a), "10.0.0.%d", i);
		e = addrtab_get(tab, ADDRTAB_WAYS, sizeof(*tab), a, 100 + i);
		CU_ASSERT_EQUAL(e->n, 0);
		e->n = i + 1;
	}
	/* 10.0.0.0 used again: 10.0.0.1 is now the oldest. */
	e = addrtab_get(tab, ADDRTAB_WAYS, sizeof(*tab), "10.0.0.0", 200);
	CU_ASSERT_EQUAL(e->n, 1);
	e = addrtab_get(tab, ADDRTAB_WAYS, sizeof(*tab), "10.9.9.9", 201);
	CU_ASSERT_EQUAL(e->n, 0);
	CU_ASSERT_PTR_EQUAL(e, &tab[1]);
	CU_ASSERT_STRING_EQUAL(tab[1].slot.addr, "10.9.9.9");
	e = addrtab_get(tab, ADDRTAB_WAYS, sizeof(*tab), "10.0.0.7", 202);
	CU_ASSERT_EQUAL(e->n, 8);
}

TEST_SUITE("lograte", setup, teardown,
    { "address of a peer", test_addr },
    { "once a minute per address and kind", test_once_a_minute },
    { "interval 0 logs every one", test_every_one_with_zero },
    { "burst over all addresses", test_burst },
    { "full table evicts the least recently used", test_table_evicts_lru });
