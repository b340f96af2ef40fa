/*
 * Paging through topics' partitions (worker/op/describe.h: op_topic_page),
 * as Kafka's DescribeTopicPartitions pages: each page at most the limit,
 * an unknown topic shown without taking any of it, a page that ends at a
 * topic's last partition pointing at the next topic, a cursor partition
 * past a topic's end showing none of it.
 */
#include <string.h>

#include "tests/harness.h"
#include "worker/op/describe.h"

static void
set(struct op_page_topic *t, const int32_t *nparts, const int32_t *start,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].nparts = nparts[i];
		t[i].start = start != NULL ? start[i] : 0;
	}
}

static void
test_pages(void)
{
	static const int32_t np[] = { 3, -1, 1, 4 };
	static const int32_t from_cursor[] = { 2, 0, 0, 0 };
	struct op_page_topic t[4];
	int32_t next;

	/* Everything fits: no next page. */
	set(t, np, NULL, 4);
	CU_ASSERT_EQUAL(op_topic_page(t, 4, 2000, &next), -1);
	CU_ASSERT_EQUAL(next, -1);
	CU_ASSERT(t[0].shown && t[0].from == 0 && t[0].to == 3);
	CU_ASSERT(t[1].shown && t[1].from == 0 && t[1].to == 0);
	CU_ASSERT(t[2].shown && t[2].from == 0 && t[2].to == 1);
	CU_ASSERT(t[3].shown && t[3].from == 0 && t[3].to == 4);
	/* By 2: topic 0's first two, the next page at 0/2. */
	set(t, np, NULL, 4);
	CU_ASSERT_EQUAL(op_topic_page(t, 4, 2, &next), 0);
	CU_ASSERT_EQUAL(next, 2);
	CU_ASSERT(t[0].shown && t[0].from == 0 && t[0].to == 2);
	CU_ASSERT(!t[1].shown && !t[2].shown && !t[3].shown);
	/* From that cursor, by 2: 0/2, the unknown 1, 2/0, then full. */
	set(t, np, from_cursor, 4);
	CU_ASSERT_EQUAL(op_topic_page(t, 4, 2, &next), 3);
	CU_ASSERT_EQUAL(next, 0);
	CU_ASSERT(t[0].shown && t[0].from == 2 && t[0].to == 3);
	CU_ASSERT(t[1].shown);
	CU_ASSERT(t[2].shown && t[2].from == 0 && t[2].to == 1);
	CU_ASSERT(!t[3].shown);
	/* By 3: topic 0 ends the page exactly; the cursor is topic 1/0. */
	set(t, np, NULL, 4);
	CU_ASSERT_EQUAL(op_topic_page(t, 4, 3, &next), 1);
	CU_ASSERT_EQUAL(next, 0);
	CU_ASSERT(t[0].shown && t[0].to == 3 && !t[1].shown);
	/* By 5: the unknown topic takes none; 3/0-0 then 3/1 next. */
	set(t, np, NULL, 4);
	CU_ASSERT_EQUAL(op_topic_page(t, 4, 5, &next), 3);
	CU_ASSERT_EQUAL(next, 1);
	CU_ASSERT(t[3].shown && t[3].from == 0 && t[3].to == 1);
	/* A cursor past a topic's end: shown, none of its partitions. */
	{
		static const int32_t past[] = { 9, 0, 0, 0 };

		set(t, np, past, 4);
		CU_ASSERT_EQUAL(op_topic_page(t, 4, 2000, &next), -1);
		CU_ASSERT(t[0].shown && t[0].from == t[0].to);
	}
	/* Nothing to page. */
	CU_ASSERT_EQUAL(op_topic_page(t, 0, 10, &next), -1);
	CU_ASSERT_EQUAL(next, -1);
}

TEST_SUITE("op_describe", NULL, NULL,
    { "topic pages as Kafka's DescribeTopicPartitions", test_pages });
