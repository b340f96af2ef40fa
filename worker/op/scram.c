/*
 * SCRAM credentials (see worker/op/scram.h).
 */
#include <stdint.h>
#include <string.h>

#include "common/authfile.h"
#include "common/authscram.h"
#include "worker/op/scram.h"

enum op_err
op_scram_describe(const struct op_ctx *x, struct op_scram_user *u, size_t n,
    struct op_scram_user **all, size_t *nall)
{
	const struct auth_table *t = auth_table_current();
	const struct auth_user *au;
	int32_t it[2];
	size_t i, j;

	*all = NULL;
	*nall = 0;
	for (i = 0; i < n; i++) {
		memset(u[i].it, 0, sizeof(u[i].it));
		u[i].err = AUTHSCRAM_OK;
		u[i].repeat = 0;
		/* Kafka answers a user named twice once, DUPLICATE_RESOURCE. */
		for (j = 0; j < i && !u[i].repeat; j++)
			if (!u[j].repeat && u[j].name_len == u[i].name_len &&
			    memcmp(u[j].name, u[i].name, u[i].name_len) == 0) {
				u[j].err = AUTHSCRAM_DUPLICATE;
				memset(u[j].it, 0, sizeof(u[j].it));
				u[i].repeat = 1;
			}
		if (u[i].repeat)
			continue;
		au = auth_find_in(t, u[i].name, u[i].name_len);
		if (au == NULL || authscram_describe(au, u[i].it) == 0)
			u[i].err = AUTHSCRAM_NOT_FOUND;
	}
	if (n > 0)
		return OP_OK;
	if (t->nusers > 0 && (*all = op_alloc(x, t->nusers *
	    sizeof(**all))) == NULL)
		return OP_NO_MEMORY;
	for (i = 0; i < t->nusers; i++) {
		au = &t->users[i];
		if (authscram_describe(au, it) == 0)
			continue;
		memset(&(*all)[*nall], 0, sizeof(**all));
		/* The table may be replaced before the answer: a copy. */
		if (((*all)[*nall].name = op_alloc(x, au->name_len + 1)) ==
		    NULL)
			return OP_NO_MEMORY;
		memcpy((char *)(uintptr_t)(*all)[*nall].name, au->name,
		    au->name_len + 1);
		(*all)[*nall].name_len = au->name_len;
		memcpy((*all)[*nall].it, it, sizeof(it));
		(*nall)++;
	}
	return OP_OK;
}

static int
alter_edit(void *arg, const char *text, size_t len,
    const struct auth_table *t, char **out, size_t *outlen)
{
	struct op_scram_alter *a = arg;

	return authscram_alter(text, len, t, a->a, a->n, a->res, &a->nres, out,
	    outlen);
}

enum op_status
op_scram_alter(const struct op_ctx *x, struct op_scram_alter *a)
{
	memset(&a->ch, 0, sizeof(a->ch));
	a->nres = 0;
	a->res = NULL;
	if (a->n == 0)
		return OP_DONE;
	if ((a->res = op_alloc(x, a->n * sizeof(*a->res))) == NULL) {
		a->ch.err = OP_NO_MEMORY;
		return OP_DONE;
	}
	return op_auth_change(x, alter_edit, a, &a->ch);
}
