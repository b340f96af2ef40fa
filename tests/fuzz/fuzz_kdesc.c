/*
 * libFuzzer target: the declarative Kafka codec (proto/kafka/kdesc.h).
 * The input is a message body, decoded with every description (request
 * and response of every message in kmsg_all) at every version it has,
 * and as a request header.  What decodes is walked (ASan checks that
 * every string lies inside the input and every array inside the arena),
 * encoded again, and that encoding must decode and encode to itself:
 * decode and encode agree on every description at every version.  The
 * encoding through a records hook that appends the records itself
 * (kdesc_encode_hook) must be the same bytes.
 * The corpus (tests/fuzz/corpus/fuzz_kdesc/) holds real clients' bodies
 * and the flexible ones test_kdesc builds by hand.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/kafka/kdesc.h"
#include "proto/wire.h"

#include "tests/fuzz/kdesc_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kreq_hdr h;
	uint8_t *copy;
	size_t hlen;

	/* An exact-size heap copy, so ASan sees any read past the end. */
	if ((copy = malloc(size ? size : 1)) == NULL)
		abort();
	memcpy(copy, data, size);
	all_descriptions(copy, size);
	fz_lo = copy;
	fz_hi = copy + size;
	if (kmsg_decode_req_hdr(&h, copy, size, &hlen) == 0) {
		if (hlen > size)
			abort();
		touch(&h.client_id);
	}
	free(copy);
	return 0;
}
