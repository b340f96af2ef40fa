/*
 * Read-only questions every role asks of the configuration; parsing it
 * is the master's (master/config.c).
 */
#include <stdint.h>
#include <string.h>

#include "common/config.h"

const struct topic_config *
config_topic(const struct config *c, const char *name)
{
	size_t	i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < c->ntopics; i++)
		if (strcmp(c->topics[i].name, name) == 0)
			return &c->topics[i];
	return NULL;
}

int32_t
config_topic_partitions(const struct config *c, const char *name)
{
	const struct topic_config	*t = config_topic(c, name);

	if (t != NULL && t->partitions > 0)
		return t->partitions;
	return c->partitions;
}

int64_t
config_get_field(const struct config *c, size_t off, size_t width)
{
	int64_t v64;
	int32_t v32;

	if (width == sizeof(v32) && off <= sizeof(*c) - sizeof(v32)) {
		memcpy(&v32, (const char *)c + off, sizeof(v32));
		return v32;
	}
	if (width == sizeof(v64) && off <= sizeof(*c) - sizeof(v64)) {
		memcpy(&v64, (const char *)c + off, sizeof(v64));
		return v64;
	}
	return 0;
}

int
config_set_field(struct config *c, size_t off, size_t width, int64_t v)
{
	int32_t v32 = (int32_t)v;

	if (width == sizeof(v32) && off <= sizeof(*c) - sizeof(v32))
		memcpy((char *)c + off, &v32, sizeof(v32));
	else if (width == sizeof(v) && off <= sizeof(*c) - sizeof(v))
		memcpy((char *)c + off, &v, sizeof(v));
	else
		return -1;
	return 0;
}

/*
 * The topic keys that were flume.conf keys before issue 27 keep their
 * value in struct config (a SIGHUP reloads some of them there); the
 * others live in c->tstatic only.
 */
static int
tconf_global(const struct config *c, enum tconf_key k, int64_t *v)
{
	switch (k) {
	case TC_SEGMENT_BYTES:
		*v = (int64_t)c->log.segment_bytes;
		return 1;
	case TC_INDEX_INTERVAL_BYTES:
		*v = c->log.index_interval_bytes;
		return 1;
	case TC_RETENTION_BYTES:
		*v = c->log.retention_bytes;
		return 1;
	case TC_RETENTION_MS:
		*v = c->log.retention_ms;
		return 1;
	case TC_TS_TYPE:
		*v = c->log.log_append_time ? TCONF_TS_LOG_APPEND :
		    TCONF_TS_CREATE;
		return 1;
	case TC_MAX_MESSAGE_BYTES:
		*v = c->max_message_bytes;
		return 1;
	case TC_FLUSH_MESSAGES:
		*v = c->flush_messages < 0 ? INT64_MAX : c->flush_messages;
		return 1;
	case TC_FLUSH_MS:
		*v = c->flush_interval_ms < 0 ? INT64_MAX : c->flush_interval_ms;
		return 1;
	default:
		return 0;
	}
}

void
config_tconf_static(const struct config *c, const struct topic_config *t,
    enum tconf_key k, int64_t *v, int8_t *src)
{
	if (t != NULL && tconf_has(&t->tc, k)) {
		*v = t->tc.v[k];
		*src = TCS_STATIC_BROKER;
		return;
	}
	*src = tconf_has(&c->tstatic, k) ? TCS_STATIC_BROKER : TCS_DEFAULT;
	if (tconf_global(c, k, v))
		return;
	*v = tconf_has(&c->tstatic, k) ? c->tstatic.v[k] : tconf_defs[k].def;
}

void
config_topic_tconf(const struct config *c, const char *name,
    const struct tconf *dyn, struct tconf *eff, int8_t src[TC_NKEYS])
{
	const struct topic_config *t = config_topic(c, name);
	int8_t s;
	int k;

	memset(eff, 0, sizeof(*eff));
	for (k = 0; k < TC_NKEYS; k++) {
		if (dyn != NULL && tconf_has(dyn, (enum tconf_key)k)) {
			tconf_put(eff, (enum tconf_key)k, dyn->v[k]);
			s = TCS_DYNAMIC_TOPIC;
		} else {
			config_tconf_static(c, t, (enum tconf_key)k, &eff->v[k],
			    &s);
			eff->set |= 1u << k;
		}
		if (src != NULL)
			src[k] = s;
	}
}
