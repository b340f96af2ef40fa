/* The shared-memory fixture of the unit suites; see fixture_shm.h. */
#include <stdio.h>
#include <unistd.h>

#include "shm/topics.h"
#include "tests/harness.h"
#include "tests/unit/fixture_shm.h"

const char *
fixture_shm_name(void)
{
	static char name[SHM_NAME_MAX];

	if (name[0] == '\0')
		snprintf(name, sizeof(name), "/flume-test-%s-%ld",
		    test_suite.name, (long)getpid());
	return name;
}

void
fixture_region(struct shm *s, const struct shm_limits *lim, int32_t nparts,
    struct shm_partition **p)
{
	CU_ASSERT_EQUAL_FATAL(shm_create(s, fixture_shm_name(), lim), 0);
	CU_ASSERT_EQUAL_FATAL(shm_topic_create(s, "t", 1, nparts, NULL), 0);
	if (p != NULL) {
		*p = shm_partition(s, 0, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(*p);
	}
}

void
fixture_region_done(struct shm *s)
{
	shm_detach(s);
	shm_unlink_name(fixture_shm_name());
}
