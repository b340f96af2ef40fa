/*
 * ACLs and changes of the auth_file (see worker/op/acl.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "common/authacl.h"
#include "common/authfile.h"
#include "common/authwrite.h"
#include "common/config.h"
#include "common/log.h"
#include "shm/authpub.h"
#include "worker/op/access.h"
#include "worker/op/acl.h"
#include "worker/worker.h"

enum op_err
op_auth_admin(const struct op_ctx *x)
{
	enum op_err e;

	if (!auth_enabled())
		return OP_SECURITY_DISABLED;
	e = op_access_gate(x, AUTH_ADMIN, 1);
	return e == OP_DENIED_TOPIC ? OP_DENIED_CLUSTER : e;
}

/*
 * Is the change in force in this worker?  The master publishes what it
 * read after our signal; a generation with our text, or the second one
 * after ours was written (its read began after our rename, so it holds
 * our change or a later one made on top of it), is the one to wait for,
 * then this worker's own table must be of it.
 */
static int
change_done(const struct op_ctx *x, struct op_auth_change *ch)
{
	uint8_t *buf, h[32];
	uint32_t pub, gen;
	size_t len;

	if (ch->target == 0) {
		pub = authpub_generation(x->w->shm);
		if (pub == ch->gen0)
			return 0;
		if ((int32_t)(pub - ch->gen0) >= 2)
			ch->target = pub;
		else if ((buf = malloc(AUTHPUB_TEXT_MAX)) != NULL) {
			if (authpub_read(x->w->shm, buf, &len, &gen) == 1) {
				crypto_generichash(h, sizeof(h), buf, len,
				    NULL, 0);
				if (memcmp(h, ch->hash, sizeof(h)) == 0 ||
				    (int32_t)(gen - ch->gen0) >= 2)
					ch->target = gen;
			}
			sodium_memzero(buf, AUTHPUB_TEXT_MAX);
			free(buf);
		}
		if (ch->target == 0)
			return 0;
	}
	return (int32_t)(auth_table_generation() - ch->target) >= 0;
}

enum op_status
op_auth_change(const struct op_ctx *x, op_auth_edit_fn edit, void *arg,
    struct op_auth_change *ch)
{
	const char *path = x->w->conf->auth_file;
	struct auth_table t;
	char *text = NULL, *out = NULL, err[256];
	size_t len = 0, outlen = 0;
	int lock, rc;

	memset(ch, 0, sizeof(*ch));
	ch->err = OP_INTERNAL;
	if ((lock = authfile_lock(path)) == -1) {
		log_warn("%s: %s: cannot lock the directory of %s", x->peer,
		    x->api, path);
		return OP_DONE;
	}
	/* Under the lock, the file as the last change left it. */
	if (authfile_read(path, &text, &len, NULL) == -1) {
		log_warn("%s: %s: cannot read %s", x->peer, x->api, path);
		authfile_unlock(lock);
		return OP_DONE;
	}
	if (auth_parse(path, text, len, &t, err, sizeof(err)) == -1) {
		log_warnx("%s: %s: %s; not changing it", x->peer, x->api, err);
		authfile_text_free(text, len);
		authfile_unlock(lock);
		return OP_DONE;
	}
	rc = edit(arg, text, len, &t, &out, &outlen);
	auth_table_free(&t);
	authfile_text_free(text, len);
	if (rc == -1) {
		authfile_unlock(lock);
		return OP_DONE;
	}
	if (out == NULL) {
		authfile_unlock(lock);
		ch->err = OP_OK;
		return OP_DONE;
	}
	/* What is written must load: the master would refuse it. */
	if (auth_parse(path, out, outlen, &t, err, sizeof(err)) == -1) {
		log_warnx("%s: %s: the changed auth_file would not load (%s); "
		    "not writing it", x->peer, x->api, err);
		authfile_text_free(out, outlen);
		authfile_unlock(lock);
		return OP_DONE;
	}
	auth_table_free(&t);
	if (authfile_replace(path, lock, out, outlen) == -1) {
		log_warn("%s: %s: cannot write %s", x->peer, x->api, path);
		authfile_text_free(out, outlen);
		authfile_unlock(lock);
		ch->err = OP_STORAGE;
		return OP_DONE;
	}
	crypto_generichash(ch->hash, sizeof(ch->hash), (const uint8_t *)out,
	    outlen, NULL, 0);
	authfile_text_free(out, outlen);
	ch->gen0 = authpub_generation(x->w->shm);
	authfile_unlock(lock);
	log_info("%s: user %s: %s changed %s", x->peer, x->auth->user != NULL ?
	    x->auth->user->name : "-", x->api, path);
	/* A region without its master (never: a test's) must not signal 0. */
	if (x->w->shm->hdr->master_pid <= 1 ||
	    kill((pid_t)x->w->shm->hdr->master_pid, SIGUSR1) == -1) {
		log_warn("%s: cannot ask the master to read %s again", x->peer,
		    path);
		ch->err = OP_INTERNAL;
		return OP_DONE;
	}
	ch->waiting = 1;
	ch->deadline = x->w->now + OP_AUTH_CHANGE_WAIT_MS;
	ch->err = OP_OK;
	return OP_WAIT;
}

enum op_status
op_auth_change_poll(const struct op_ctx *x, struct op_auth_change *ch)
{
	if (!ch->waiting)
		return OP_DONE;
	if (change_done(x, ch)) {
		ch->waiting = 0;
		return OP_DONE;
	}
	if (x->w->now >= ch->deadline) {
		/* Written and durable; the master has not published it yet. */
		log_warnx("%s: %s: the changed auth_file is not in force after "
		    "%d ms", x->peer, x->api, OP_AUTH_CHANGE_WAIT_MS);
		ch->waiting = 0;
		ch->err = OP_TIMEOUT;
		return OP_DONE;
	}
	return OP_WAIT;
}

enum op_err
op_acl_describe(const struct op_ctx *x, const struct acl_spec *f,
    struct acl_binding **out, size_t *n, char *why, size_t whylen)
{
	struct acl_binding *all;
	size_t nall, i;

	*out = NULL;
	*n = 0;
	if (authacl_filter_check(f, why, whylen) == -1)
		return OP_BAD_REQUEST;
	if (authacl_list(auth_table_current(), &all, &nall) == -1)
		return OP_NO_MEMORY;
	for (i = 0; i < nall; i++)
		if (authacl_match(f, &all[i]))
			all[(*n)++] = all[i];
	if (*n > 0 && (*out = op_alloc(x, *n * sizeof(**out))) == NULL) {
		free(all);
		*n = 0;
		return OP_NO_MEMORY;
	}
	if (*n > 0)
		memcpy(*out, all, *n * sizeof(**out));
	free(all);
	return OP_OK;
}

static int
create_edit(void *arg, const char *text, size_t len,
    const struct auth_table *t, char **out, size_t *outlen)
{
	struct op_acl_create *a = arg;

	return authacl_create(text, len, t, a->c, a->n, a->refused, a->why,
	    out, outlen);
}

enum op_status
op_acl_create(const struct op_ctx *x, struct op_acl_create *a)
{
	a->refused = NULL;
	a->why = NULL;
	memset(&a->ch, 0, sizeof(a->ch));
	if (a->n == 0)
		return OP_DONE;
	if ((a->refused = op_alloc(x, a->n * sizeof(*a->refused))) == NULL ||
	    (a->why = op_alloc(x, a->n * sizeof(*a->why))) == NULL) {
		a->ch.err = OP_NO_MEMORY;
		return OP_DONE;
	}
	return op_auth_change(x, create_edit, a, &a->ch);
}

static int
delete_edit(void *arg, const char *text, size_t len,
    const struct auth_table *t, char **out, size_t *outlen)
{
	struct op_acl_delete *a = arg;

	return authacl_delete(text, len, t, a->f, a->n, a->d, out, outlen);
}

enum op_status
op_acl_delete(const struct op_ctx *x, struct op_acl_delete *a)
{
	struct acl_deleted *d;
	enum op_status st;
	size_t i;

	memset(&a->ch, 0, sizeof(a->ch));
	a->d = NULL;
	if (a->n == 0)
		return OP_DONE;
	if ((d = calloc(a->n, sizeof(*d))) == NULL) {
		a->ch.err = OP_NO_MEMORY;
		return OP_DONE;
	}
	a->d = d;
	st = op_auth_change(x, delete_edit, a, &a->ch);
	/* The matches into request memory: the answer reads them later. */
	a->d = NULL;
	if ((a->d = op_alloc(x, a->n * sizeof(*a->d))) == NULL) {
		authacl_deleted_free(d, a->n);
		free(d);
		a->ch.err = OP_NO_MEMORY;
		a->ch.waiting = 0;
		return OP_DONE;
	}
	for (i = 0; i < a->n; i++) {
		a->d[i] = d[i];
		a->d[i].m = NULL;
		if (d[i].n > 0 && (a->d[i].m = op_alloc(x, d[i].n *
		    sizeof(*d[i].m))) != NULL)
			memcpy(a->d[i].m, d[i].m, d[i].n * sizeof(*d[i].m));
		else
			a->d[i].n = 0;
	}
	authacl_deleted_free(d, a->n);
	free(d);
	return st;
}
