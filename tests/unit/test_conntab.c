/*
 * Each worker's connections in shared memory (shm/conntab.h): an entry
 * taken, named and released by its worker reads back whole; a full
 * table gives -1; an entry a dead writer left mid-write (seq odd) is
 * neither read nor reused until the master clears the slot's table;
 * client software is cut to fit, unprintable bytes shown as '?'.
 */
#include <stdatomic.h>
#include <string.h>

#include "shm/conntab.h"
#include "tests/harness.h"
#include "tests/unit/fixture_shm.h"

static void
test_take_read_release(void)
{
	struct shm_limits lim = { .child_slots = 3, .max_topics = 1,
	    .max_partitions = 1, .ring_size = 4096, .conn_slots = 3 };
	struct conntab_entry e, *t;
	struct shm s;
	int a, b, c;

	fixture_region(&s, &lim, 1, NULL);
	CU_ASSERT_EQUAL(conntab_slots(&s), 3);
	a = conntab_take(&s, 1, CONNTAB_KAFKA, 0, "127.0.0.1:5000", 1000);
	b = conntab_take(&s, 1, CONNTAB_NATIVE, 1, "[::1]:6000", 2000);
	c = conntab_take(&s, 1, CONNTAB_NATIVE, 0, "10.0.0.1:1", 3000);
	CU_ASSERT(a >= 0 && b >= 0 && c >= 0 && a != b && b != c && a != c);
	CU_ASSERT_EQUAL(conntab_take(&s, 1, CONNTAB_NATIVE, 0, "x", 4), -1);
	/* Another slot's table is its own. */
	CU_ASSERT_EQUAL(conntab_take(&s, 2, CONNTAB_NATIVE, 0, "y", 5), 0);
	conntab_set_client(&s, 1, a, "librdkafka", 10,
	    "2.0.2-with-a-very-long-version-string", 37);
	conntab_set_tls(&s, 1, a);
	CU_ASSERT_EQUAL_FATAL(conntab_read(&s, 1, (uint32_t)a, &e), 1);
	CU_ASSERT_EQUAL(e.face, CONNTAB_KAFKA);
	CU_ASSERT_EQUAL(e.tls, 1);
	CU_ASSERT_EQUAL(e.opened_ms, 1000);
	CU_ASSERT_STRING_EQUAL(e.peer, "127.0.0.1:5000");
	CU_ASSERT_STRING_EQUAL(e.sw_name, "librdkafka");
	CU_ASSERT_STRING_EQUAL(e.sw_version,
	    "2.0.2-with-a-very-long-version-");
	conntab_set_client(&s, 1, b, "a\nb\x01", 4, "", 0);
	CU_ASSERT_EQUAL_FATAL(conntab_read(&s, 1, (uint32_t)b, &e), 1);
	CU_ASSERT_STRING_EQUAL(e.sw_name, "a?b?");
	CU_ASSERT_STRING_EQUAL(e.peer, "[::1]:6000");
	/* Released: not read, taken again (the only free one). */
	conntab_release(&s, 1, a);
	CU_ASSERT_EQUAL(conntab_read(&s, 1, (uint32_t)a, &e), 0);
	CU_ASSERT_EQUAL(conntab_take(&s, 1, CONNTAB_NATIVE, 0, "z", 6), a);
	/* A writer that died mid-write: skipped, never reused. */
	t = (struct conntab_entry *)(void *)s.conntab + 3 * 1;
	atomic_fetch_add(&t[c].seq, 1);
	CU_ASSERT_EQUAL(conntab_read(&s, 1, (uint32_t)c, &e), 0);
	conntab_release(&s, 1, a);
	CU_ASSERT_EQUAL(conntab_take(&s, 1, CONNTAB_NATIVE, 0, "w", 7), a);
	CU_ASSERT_EQUAL(conntab_take(&s, 1, CONNTAB_NATIVE, 0, "v", 8), -1);
	/* The master clears the slot: all free again, slot 2 untouched. */
	conntab_clear(&s, 1);
	CU_ASSERT_EQUAL(conntab_read(&s, 1, (uint32_t)b, &e), 0);
	CU_ASSERT((a = conntab_take(&s, 1, CONNTAB_NATIVE, 0, "u", 9)) >= 0);
	CU_ASSERT_EQUAL(conntab_read(&s, 1, (uint32_t)a, &e), 1);
	CU_ASSERT_STRING_EQUAL(e.peer, "u");
	CU_ASSERT_EQUAL(conntab_read(&s, 2, 0, &e), 1);
	CU_ASSERT_STRING_EQUAL(e.peer, "y");
	fixture_region_done(&s);
}

TEST_SUITE("conntab", NULL, NULL,
    { "take, read, release, a torn entry, clear",
      test_take_read_release });
