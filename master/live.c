/*
 * SIGHUP reloads (see master/live.h).
 *
 * The live block is a seqlock with a single writer, the master: it makes
 * seq odd, stores every field, bumps the generation and makes seq even
 * again.  Readers copy the fields between two loads of seq and keep the
 * copy only when both loads saw the same even value.  Every field is an
 * atomic, so a torn copy is impossible at the language level as well;
 * the seqlock makes the copy consistent as a whole.  Retries are bounded:
 * a master that died mid-write leaves seq odd, and then the children
 * simply keep what they have (the next master creates a new region).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "master/live.h"
#include "master/log.h"
#include "worker/auth.h"

#define LIVE_READ_TRIES	64
#define LIVE_LIST_MAX	1024	/* bytes of key names per log line */

static const char *const live_keys[] = {
	"log_level", "retention_ms", "retention_bytes", "retention_check_ms",
	"flush_interval_ms", "flush_messages", "max_connections",
	"max_message_bytes", "idle_timeout_ms", "request_timeout_ms",
	"auto_create_topics", "max_connections_per_ip", "handshake_timeout_ms",
};
#define NLIVE	(sizeof(live_keys) / sizeof(live_keys[0]))

/* The master's view of its file as last read (reloadable parts applied). */
static struct config	file_view;
static int		file_view_set;

/* The generation this process has applied (children). */
static uint32_t		live_seen;

int
live_key_reloadable(const char *key)
{
	size_t i;

	for (i = 0; i < NLIVE; i++)
		if (strcmp(live_keys[i], key) == 0)
			return 1;
	return 0;
}

/* Deep copy (the topic sections are an array of their own). */
static int
conf_copy(struct config *dst, const struct config *src)
{
	*dst = *src;
	dst->topics = NULL;
	dst->ntopics = 0;
	if (src->ntopics == 0)
		return 0;
	if ((dst->topics = calloc(src->ntopics, sizeof(*dst->topics))) == NULL)
		return -1;
	memcpy(dst->topics, src->topics, src->ntopics * sizeof(*dst->topics));
	dst->ntopics = src->ntopics;
	return 0;
}

int
live_init(const struct config *as_read)
{
	live_fini();
	if (conf_copy(&file_view, as_read) == -1) {
		errno = ENOMEM;
		return -1;
	}
	file_view_set = 1;
	return 0;
}

void
live_fini(void)
{
	if (file_view_set)
		config_free(&file_view);
	file_view_set = 0;
}

/* Copy the reloadable global settings from src to dst (log_level aside). */
static void
live_copy_fields(struct config *dst, const struct config *src)
{
	dst->log.retention_ms = src->log.retention_ms;
	dst->log.retention_bytes = src->log.retention_bytes;
	dst->retention_check_ms = src->retention_check_ms;
	dst->flush_interval_ms = src->flush_interval_ms;
	dst->flush_messages = src->flush_messages;
	dst->max_connections = src->max_connections;
	dst->max_connections_per_ip = src->max_connections_per_ip;
	dst->handshake_timeout_ms = src->handshake_timeout_ms;
	dst->max_message_bytes = src->max_message_bytes;
	dst->idle_timeout_ms = src->idle_timeout_ms;
	dst->request_timeout_ms = src->request_timeout_ms;
	dst->auto_create_topics = src->auto_create_topics;
}

void
live_publish(struct shm *s, const struct config *c)
{
	struct shm_live *l = &s->hdr->live;
	uint32_t seq = atomic_load_explicit(&l->seq, memory_order_relaxed);

	atomic_store_explicit(&l->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&l->log_level, c->log_level, memory_order_relaxed);
	atomic_store_explicit(&l->auto_create_topics, c->auto_create_topics,
	    memory_order_relaxed);
	atomic_store_explicit(&l->max_connections, c->max_connections,
	    memory_order_relaxed);
	atomic_store_explicit(&l->max_connections_per_ip,
	    c->max_connections_per_ip, memory_order_relaxed);
	atomic_store_explicit(&l->handshake_timeout_ms, c->handshake_timeout_ms,
	    memory_order_relaxed);
	atomic_store_explicit(&l->max_message_bytes, c->max_message_bytes,
	    memory_order_relaxed);
	atomic_store_explicit(&l->idle_timeout_ms, c->idle_timeout_ms,
	    memory_order_relaxed);
	atomic_store_explicit(&l->request_timeout_ms, c->request_timeout_ms,
	    memory_order_relaxed);
	atomic_store_explicit(&l->retention_check_ms, c->retention_check_ms,
	    memory_order_relaxed);
	atomic_store_explicit(&l->retention_ms, c->log.retention_ms,
	    memory_order_relaxed);
	atomic_store_explicit(&l->retention_bytes, c->log.retention_bytes,
	    memory_order_relaxed);
	atomic_store_explicit(&l->flush_interval_ms, c->flush_interval_ms,
	    memory_order_relaxed);
	atomic_store_explicit(&l->flush_messages, c->flush_messages,
	    memory_order_relaxed);
	atomic_store_explicit(&l->generation,
	    atomic_load_explicit(&l->generation, memory_order_relaxed) + 1,
	    memory_order_relaxed);
	atomic_store_explicit(&l->seq, seq + 2, memory_order_release);
}

int
live_refresh(struct shm *s, const struct config *cc)
{
	struct shm_live *l = &s->hdr->live;
	struct config tmp;
	uint32_t s1, s2, gen;
	int i;
	/*
	 * The configuration a child was handed is its own copy, made by
	 * fork() from the master's (a non-const object): the one place a
	 * child changes it is here, under the master's instructions.
	 */
	struct config *c = (struct config *)(uintptr_t)cc;

	gen = atomic_load_explicit(&l->generation, memory_order_relaxed);
	if (gen == live_seen)
		return 0;
	for (i = 0; i < LIVE_READ_TRIES; i++) {
		s1 = atomic_load_explicit(&l->seq, memory_order_acquire);
		if (s1 & 1) {
			sched_yield();
			continue;
		}
		gen = atomic_load_explicit(&l->generation, memory_order_relaxed);
		tmp.log_level = atomic_load_explicit(&l->log_level,
		    memory_order_relaxed);
		tmp.auto_create_topics = atomic_load_explicit(
		    &l->auto_create_topics, memory_order_relaxed);
		tmp.max_connections = atomic_load_explicit(&l->max_connections,
		    memory_order_relaxed);
		tmp.max_connections_per_ip = atomic_load_explicit(
		    &l->max_connections_per_ip, memory_order_relaxed);
		tmp.handshake_timeout_ms = atomic_load_explicit(
		    &l->handshake_timeout_ms, memory_order_relaxed);
		tmp.max_message_bytes = atomic_load_explicit(
		    &l->max_message_bytes, memory_order_relaxed);
		tmp.idle_timeout_ms = atomic_load_explicit(&l->idle_timeout_ms,
		    memory_order_relaxed);
		tmp.request_timeout_ms = atomic_load_explicit(
		    &l->request_timeout_ms, memory_order_relaxed);
		tmp.retention_check_ms = atomic_load_explicit(
		    &l->retention_check_ms, memory_order_relaxed);
		tmp.log.retention_ms = atomic_load_explicit(&l->retention_ms,
		    memory_order_relaxed);
		tmp.log.retention_bytes = atomic_load_explicit(
		    &l->retention_bytes, memory_order_relaxed);
		tmp.flush_interval_ms = atomic_load_explicit(
		    &l->flush_interval_ms, memory_order_relaxed);
		tmp.flush_messages = atomic_load_explicit(&l->flush_messages,
		    memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&l->seq, memory_order_relaxed);
		if (s1 != s2)
			continue;
		live_copy_fields(c, &tmp);
		c->log_level = tmp.log_level;
		log_setlevel(tmp.log_level);
		live_seen = gen;
		log_info("applied the reloaded settings (generation %u)", gen);
		return 1;
	}
	return 0;
}

/* Key names collected by config_diff, split by whether they reload. */
struct live_diff {
	char	applied[LIVE_LIST_MAX];
	char	restart[LIVE_LIST_MAX];
	int	napplied, nrestart;
	int	log_level;		/* log_level changed in the file */
};

static void
live_list_add(char *list, const char *key)
{
	if (list[0] != '\0')
		strlcat(list, ", ", LIVE_LIST_MAX);
	strlcat(list, key, LIVE_LIST_MAX);
}

static void
live_diff_key(const char *key, void *arg)
{
	struct live_diff *d = arg;

	if (live_key_reloadable(key)) {
		live_list_add(d->applied, key);
		d->napplied++;
		if (strcmp(key, "log_level") == 0)
			d->log_level = 1;
	} else {
		live_list_add(d->restart, key);
		d->nrestart++;
	}
}

int
live_reload(struct broker *b)
{
	struct config nc;
	struct live_diff d;
	char err[PATH_MAX + 512], warn[PATH_MAX + 128];
	int slot, users;
	/* The master's own configuration (main's), which it alone changes. */
	struct config *conf = (struct config *)(uintptr_t)b->conf;

	log_info("SIGHUP: reloading %s", conf->path);
	if (config_load(&nc, conf->path, err, sizeof(err)) == -1) {
		log_warnx("reload failed: %s; keeping the current settings", err);
		return -1;
	}
	if (!file_view_set && live_init(conf) == -1) {
		config_free(&nc);
		log_warnx("reload failed: out of memory; keeping the current "
		    "settings");
		return -1;
	}
	memset(&d, 0, sizeof(d));
	config_diff(&file_view, &nc, live_diff_key, &d);
	if (d.napplied == 0 && d.nrestart == 0)
		log_info("reload: no setting changed");
	if (d.napplied > 0)
		log_info("reload: applied %s", d.applied);
	if (d.nrestart > 0)
		log_warnx("reload: changed settings that need a restart of "
		    "flume-master to take effect: %s", d.restart);
	if (d.napplied > 0) {
		live_copy_fields(conf, &nc);
		live_copy_fields(&file_view, &nc);
		if (d.log_level) {
			conf->log_level = nc.log_level;
			file_view.log_level = nc.log_level;
		}
		log_setlevel(conf->log_level);
		live_publish(&b->shm, conf);
	}
	/* The users and their permissions: the file the broker started with. */
	users = auth_reload(&b->shm, conf->auth_file, err, sizeof(err), warn,
	    sizeof(warn));
	if (users == -1)
		log_warnx("reload of the auth_file failed: %s; keeping the "
		    "current users", err);
	else if (users == 1) {
		if (warn[0] != '\0')
			log_warnx("%s", warn);
		log_info("reload: read %s again", conf->auth_file);
	}
	if (d.napplied > 0 || users == 1)
		for (slot = 0; slot < b->nslots; slot++)
			broker_wake(b, slot);
	config_free(&nc);
	return d.napplied;
}
