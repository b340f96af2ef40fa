/*
 * Test harness shared by every suite.  A suite file defines one array of
 * test cases and names it with TEST_SUITE(); harness.c supplies main(),
 * runs the suite with CUnit and prints one machine-readable line
 *   RESULT <suite> <passed> <failed>
 * that scripts/run-tests adds up.
 */
#ifndef FLUME_TESTS_HARNESS_H
#define FLUME_TESTS_HARNESS_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

struct test_case {
	const char	*name;
	void		(*fn)(void);
};

struct test_suite {
	const char		*name;
	int			(*setup)(void);		/* may be NULL */
	int			(*teardown)(void);	/* may be NULL */
	const struct test_case	*cases;
};

extern const struct test_suite test_suite;

#define TEST_SUITE(NAME, SETUP, TEARDOWN, ...)				\
	static const struct test_case test_cases_[] = {			\
		__VA_ARGS__, { NULL, NULL } };				\
	const struct test_suite test_suite = {				\
		NAME, SETUP, TEARDOWN, test_cases_ }

/* A scratch directory under $TMPDIR, removed recursively by test_rmtree. */
char	*test_mkdtemp(const char *tag);
void	 test_rmtree(const char *path);

/*
 * Standard error into the file path (made anew) until
 * test_capture_end(), which restores it and reads what was written into
 * buf (NUL-terminated, at most len - 1 bytes): its length, or -1.
 */
int	 test_capture_begin(const char *path);
long	 test_capture_end(const char *path, char *buf, size_t len);

/* Deterministic pseudo-random numbers (xorshift), seeded per suite. */
uint64_t test_rand(void);
void	 test_fill_random(void *buf, size_t len);

/*
 * The source tree, for a suite's fixtures: $FLUME_SRCDIR, else what
 * precedes rel (the suite's own path in the tree) in file (its
 * __FILE__), else ".".  The string is static.
 */
const char *test_srcdir(const char *file, const char *rel);
/* A whole file of at most 1 MiB, malloc'd, or NULL. */
uint8_t	*test_slurp(const char *path, size_t *len);
/*
 * Make the whole batch b (len bytes) transactional (attribute 0x10, as
 * Kafka's transactional producers send) and fix its CRC.
 */
void	 test_batch_set_transactional(uint8_t *b, size_t len);

#endif
