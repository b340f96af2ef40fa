/*
 * The worker's one inflate buffer; see inflate.h.  16 x max_message_bytes
 * is more than any real codec achieves on real records, and a batch that
 * would inflate further is refused (MESSAGE_TOO_LARGE) after inflating
 * no more than that.
 */
#include "common/config.h"
#include "worker/op/inflate.h"

#define INFLATE_FACTOR	16

size_t
inflate_limit(const struct config *conf)
{
	size_t mmb = conf->max_message_bytes;

	return mmb > COMPRESS_LIMIT_MAX / INFLATE_FACTOR ? COMPRESS_LIMIT_MAX :
	    mmb * INFLATE_FACTOR;
}

struct compress_buf *
inflate_scratch(const struct config *conf)
{
	static struct compress_buf scratch;

	scratch.limit = inflate_limit(conf);
	return &scratch;
}
