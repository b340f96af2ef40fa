/*
 * The bad-input cases of test_badinput.c re-run with authentication on:
 * the broker has an auth_file, every raw connection authenticates before
 * its bad bytes, the tools use FLUME_SECRET_FILE.  Plus the same kind of
 * garbage sent before authenticating, which must be refused just as
 * safely (closed, or ERR_AUTH_REQUIRED) without touching any data.
 */
#define BADINPUT_AUTH		1
#define BADINPUT_SUITE		"badinput-auth"
#define BADINPUT_EXTRA_CASES	{ "garbage before authenticating", \
	test_garbage_unauthenticated },

#include <stdint.h>

struct wbuf;
static void	test_garbage_unauthenticated(void);

#include "tests/integration/test_badinput.c"

/*
 * Junk and well-formed requests from a client that never authenticated.
 * Seeded junk under a size field over max_request_bytes: closed.  One
 * whole frame of junk for an API key no row serves: ERR_AUTH_REQUIRED
 * (nothing is answered before authentication, known or not) under its
 * request id, an error and nothing else.
 */
static void
test_garbage_unauthenticated(void)
{
	uint8_t junk[512], *payload = NULL;
	struct wbuf wb;
	size_t len = 0;
	uint32_t id = 0, want;
	int fd, i;

	for (i = 0; i < 3; i++) {
		fd = support_connect(&d);
		CU_ASSERT_FATAL(fd != -1);
		test_fill_random(junk, sizeof(junk));
		junk[0] |= 0x80;	/* a size of 2 GiB or more */
		support_send(fd, junk, sizeof(junk));
		CU_ASSERT_EQUAL(support_recv(fd, 5000, &id, &payload, &len), 0);
		free(payload);
		payload = NULL;
		close(fd);
	}
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	test_fill_random(junk, sizeof(junk));
	be32_put(junk, 100);
	be16_put(junk + 4, (uint16_t)(API_MAX +
	    be16_get(junk + 4) % (0x10000 - API_MAX)));
	want = be32_get(junk + 6);
	/* That frame alone: what follows it would be a frame of its own. */
	support_send(fd, junk, 4 + 100);
	CU_ASSERT_EQUAL(support_recv(fd, 5000, &id, &payload, &len), 1);
	CU_ASSERT_EQUAL(id, want);
	CU_ASSERT_EQUAL(len, 2);
	CU_ASSERT(payload != NULL && len >= 2 &&
	    (int16_t)be16_get(payload) == ERR_AUTH_REQUIRED);
	free(payload);
	payload = NULL;
	close(fd);
	/* A well-formed create from nobody in particular: refused. */
	fd = support_connect(&d);
	CU_ASSERT_FATAL(fd != -1);
	wbuf_init(&wb);
	wbuf_str(&wb, "intruder", 8);
	wbuf_i32(&wb, 1);
	CU_ASSERT_EQUAL(support_request(fd, API_CREATE_TOPIC, 9, wb.buf, wb.len), 0);
	CU_ASSERT_EQUAL(support_recv(fd, 5000, &id, &payload, &len), 1);
	CU_ASSERT_EQUAL(id, 9);
	CU_ASSERT_FATAL(len >= 2);
	CU_ASSERT_EQUAL((int16_t)be16_get(payload), ERR_AUTH_REQUIRED);
	free(payload);
	wbuf_free(&wb);
	close(fd);
	good_client_works();
}
