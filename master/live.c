/*
 * SIGHUP reloads, the master's side (see master/live.h; the children's
 * side is common/live.c).
 *
 * The live block is a seqlock with a single writer, the master: it makes
 * seq odd, stores every reloadable setting as (offset in struct config,
 * width, value), bumps the generation and makes seq even again.  Which
 * settings those are is the reload column of the key table
 * (master/config.c): nothing here names a setting.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "master/live.h"
#include "common/log.h"
#include "common/authfile.h"
#include "common/tlsctx.h"

#define LIVE_LIST_MAX	1024	/* bytes of key names per log line */

/* The master's view of its file as last read (reloadable parts applied). */
static struct config	file_view;
static int		file_view_set;

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

void
live_publish(struct shm *s, const struct config *c)
{
	struct shm_live *l = &s->hdr->live;
	struct config_field f[SHM_LIVE_FIELDS];
	uint32_t seq = atomic_load_explicit(&l->seq, memory_order_relaxed);
	size_t i, n;

	n = config_reloadable(f, SHM_LIVE_FIELDS);
	if (n > SHM_LIVE_FIELDS) {
		/* A table with more reload rows than the block holds: a bug. */
		log_warnx("live: %zu reloadable settings, only %d published",
		    n, SHM_LIVE_FIELDS);
		n = SHM_LIVE_FIELDS;
	}
	atomic_store_explicit(&l->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (i = 0; i < n; i++) {
		atomic_store_explicit(&l->field[i].off, (uint32_t)f[i].off,
		    memory_order_relaxed);
		atomic_store_explicit(&l->field[i].width, (uint32_t)f[i].width,
		    memory_order_relaxed);
		atomic_store_explicit(&l->field[i].value,
		    config_get_field(c, f[i].off, f[i].width), memory_order_relaxed);
	}
	atomic_store_explicit(&l->nfields, (uint32_t)n, memory_order_relaxed);
	atomic_store_explicit(&l->generation,
	    atomic_load_explicit(&l->generation, memory_order_relaxed) + 1,
	    memory_order_relaxed);
	atomic_store_explicit(&l->seq, seq + 2, memory_order_release);
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

	if (config_key_reloadable(key)) {
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
live_reload_users(struct broker *b, int wake)
{
	struct config *conf = b->conf;
	char err[PATH_MAX + 512], warn[PATH_MAX + 128];
	int users, slot;

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
	if (wake && users == 1)
		for (slot = 0; slot < b->nslots; slot++)
			broker_wake(b, slot);
	return users;
}

int
live_reload(struct broker *b)
{
	struct config nc, *conf = b->conf;
	struct live_diff d;
	char err[PATH_MAX + 512];
	int slot, level, flevel, users, tls;

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
	/*
	 * The certificates, by the paths the broker started with: checked
	 * here, so one line says whether the workers will take them; they
	 * build their own contexts when the generation moves.
	 */
	tls = 0;
	if (tlsctx_wanted(conf)) {
		SSL_CTX *ctx;

		if ((ctx = tlsctx_new(conf, err, sizeof(err))) == NULL)
			log_warnx("reload: %s; keeping the current certificate",
			    err);
		else {
			SSL_CTX_free(ctx);
			tls = 1;
			log_info("reload: TLS certificate read again");
		}
	}
	if (d.napplied > 0) {
		/* A log level the file did not change stays (it may be -v's). */
		level = conf->log_level;
		flevel = file_view.log_level;
		config_copy_reloadable(conf, &nc);
		config_copy_reloadable(&file_view, &nc);
		if (!d.log_level) {
			conf->log_level = level;
			file_view.log_level = flevel;
		}
		log_setlevel(conf->log_level);
		live_publish(&b->shm, conf);
	} else if (tls)
		live_publish(&b->shm, conf);	/* a new generation: reload */
	/* The users and their permissions: the file the broker started with. */
	users = live_reload_users(b, 0);
	if (d.napplied > 0 || users == 1 || tls)
		for (slot = 0; slot < b->nslots; slot++)
			broker_wake(b, slot);
	config_free(&nc);
	return d.napplied;
}
