/*
 * The auth_file's grants as Kafka ACLs and back (see common/authacl.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/authacl.h"
#include "common/authwrite.h"

#define BUNDLE_MAX	6

/* The bindings one grant bit stands for, on its resource pattern. */
static const struct bundle {
	unsigned	 bit;
	const char	*word;
	int8_t		 res;
	int8_t		 ops[BUNDLE_MAX];	/* ACL_OP_UNKNOWN ends */
} bundles[] = {
	{ AUTH_PRODUCE, "produce", ACL_RES_TOPIC, { ACL_OP_WRITE } },
	{ AUTH_CONSUME, "consume", ACL_RES_TOPIC, { ACL_OP_READ } },
	{ AUTH_ADMIN, "admin", ACL_RES_TOPIC, { ACL_OP_CREATE, ACL_OP_DELETE,
	    ACL_OP_ALTER, ACL_OP_DESCRIBE_CONFIGS, ACL_OP_ALTER_CONFIGS } },
	{ AUTH_GROUP_READ, "group-read", ACL_RES_GROUP, { ACL_OP_READ } },
	{ AUTH_GROUP_DESCRIBE, "group-describe", ACL_RES_GROUP,
	    { ACL_OP_DESCRIBE } },
	{ AUTH_GROUP_DELETE, "group-delete", ACL_RES_GROUP, { ACL_OP_DELETE } },
};
#define NBUNDLES	(sizeof(bundles) / sizeof(bundles[0]))

static const char *const op_names[] = {
	"UNKNOWN", "ANY", "ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER",
	"DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS",
	"IDEMPOTENT_WRITE", "CREATE_TOKENS", "DESCRIBE_TOKENS"
};

static const char *
op_name(int op)
{
	return op >= 0 && (size_t)op < sizeof(op_names) / sizeof(op_names[0]) ?
	    op_names[op] : "UNKNOWN";
}

static const struct bundle *
bundle_of(unsigned bit)
{
	size_t i;

	for (i = 0; i < NBUNDLES; i++)
		if (bundles[i].bit == bit)
			return &bundles[i];
	return NULL;
}

/* "CREATE, DELETE, ..." of a bundle (and the cluster's ALL) into buf. */
static void
bundle_ops(const struct bundle *bd, int cluster, char *buf, size_t len)
{
	size_t i, n = 0;
	int w;

	buf[0] = '\0';
	for (i = 0; i < BUNDLE_MAX && bd->ops[i] != ACL_OP_UNKNOWN; i++) {
		w = snprintf(buf + n, len - n, "%s%s", i > 0 ? ", " : "",
		    op_name(bd->ops[i]));
		if (w < 0 || (size_t)w >= len - n)
			return;
		n += (size_t)w;
	}
	if (cluster)
		snprintf(buf + n, len - n, " on the topics and ALL on the "
		    "CLUSTER " ACL_CLUSTER_NAME);
}

/* A grant's resource pattern: LITERAL "*", LITERAL name or PREFIXED. */
static void
grant_pattern(const struct auth_grant *g, int8_t *pat, const char **name,
    size_t *len)
{
	if (g->prefix_len == 0) {
		*pat = ACL_PAT_LITERAL;
		*name = "*";
		*len = 1;
	} else {
		*pat = g->exact ? ACL_PAT_LITERAL : ACL_PAT_PREFIXED;
		*name = g->prefix;
		*len = g->prefix_len;
	}
}

static int
grant_same(const struct auth_grant *a, const struct auth_grant *b)
{
	return a->perm == b->perm && a->exact == b->exact &&
	    a->prefix_len == b->prefix_len &&
	    memcmp(a->prefix, b->prefix, a->prefix_len) == 0;
}

/* Is grant j of u a repeat of an earlier one (listed once)? */
static int
grant_repeat(const struct auth_user *u, size_t j)
{
	size_t i;

	for (i = 0; i < j; i++)
		if (grant_same(&u->grants[i], &u->grants[j]))
			return 1;
	return 0;
}

/* The bindings grant j of user ui stands for, appended to *v. */
static int
grant_bindings(const struct auth_table *t, size_t ui, size_t j,
    struct acl_binding **v, size_t *n, size_t *cap)
{
	const struct auth_user *u = &t->users[ui];
	const struct auth_grant *g = &u->grants[j];
	const struct bundle *bd = bundle_of(g->perm);
	struct acl_binding *b, *nv;
	const char *name;
	size_t len, k, extra;
	int8_t pat;

	if (bd == NULL)
		return 0;
	extra = g->perm == AUTH_ADMIN && g->prefix_len == 0;
	for (k = 0; k < BUNDLE_MAX + 1; k++) {
		if (k < BUNDLE_MAX && bd->ops[k] == ACL_OP_UNKNOWN)
			k = BUNDLE_MAX;
		if (k == BUNDLE_MAX && !extra)
			break;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			if ((nv = reallocarray(*v, *cap, sizeof(**v))) == NULL)
				return -1;
			*v = nv;
		}
		b = &(*v)[(*n)++];
		memset(b, 0, sizeof(*b));
		b->perm = ACL_PERM_ALLOW;
		b->user = ui;
		b->grant = j;
		snprintf(b->principal, sizeof(b->principal), "User:%s", u->name);
		if (k == BUNDLE_MAX) {
			b->res = ACL_RES_CLUSTER;
			b->pat = ACL_PAT_LITERAL;
			b->op = ACL_OP_ALL;
			snprintf(b->name, sizeof(b->name), "%s", ACL_CLUSTER_NAME);
			break;
		}
		b->res = bd->res;
		b->op = bd->ops[k];
		grant_pattern(g, &pat, &name, &len);
		b->pat = pat;
		memcpy(b->name, name, len);
		b->name[len] = '\0';
	}
	return 0;
}

static int
binding_cmp(const void *pa, const void *pb)
{
	const struct acl_binding *a = pa, *b = pb;
	int c;

	if (a->res != b->res)
		return a->res - b->res;
	if (a->pat != b->pat)
		return a->pat - b->pat;
	if ((c = strcmp(a->name, b->name)) != 0)
		return c;
	if ((c = strcmp(a->principal, b->principal)) != 0)
		return c;
	return a->op - b->op;
}

/* Every binding of t (repeated grants once), unsorted. */
static int
all_bindings(const struct auth_table *t, struct acl_binding **out,
    size_t *n)
{
	size_t ui, j, cap = 0;

	*out = NULL;
	*n = 0;
	for (ui = 0; ui < t->nusers; ui++)
		for (j = 0; j < t->users[ui].ngrants; j++)
			if (!grant_repeat(&t->users[ui], j) &&
			    grant_bindings(t, ui, j, out, n, &cap) == -1) {
				free(*out);
				*out = NULL;
				errno = ENOMEM;
				return -1;
			}
	return 0;
}

int
authacl_list(const struct auth_table *t, struct acl_binding **out,
    size_t *n)
{
	if (all_bindings(t, out, n) == -1)
		return -1;
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), binding_cmp);
	return 0;
}

static int
str_is(const char *s, size_t len, const char *z)
{
	return strlen(z) == len && memcmp(s, z, len) == 0;
}

int
authacl_match(const struct acl_spec *f, const struct acl_binding *b)
{
	size_t bl = strlen(b->name);

	if (f->res != ACL_RES_ANY && f->res != b->res)
		return 0;
	if (f->principal != NULL && !str_is(f->principal, f->principal_len,
	    b->principal))
		return 0;
	if (f->host != NULL && !str_is(f->host, f->host_len, "*"))
		return 0;
	if (f->op != ACL_OP_ANY && f->op != b->op)
		return 0;
	if (f->perm != ACL_PERM_ANY && f->perm != b->perm)
		return 0;
	switch (f->pat) {
	case ACL_PAT_ANY:
		return f->name == NULL || str_is(f->name, f->name_len, b->name);
	case ACL_PAT_MATCH:
		/* Kafka: the bindings that apply to the resource named. */
		if (f->name == NULL)
			return 1;
		if (b->pat == ACL_PAT_LITERAL)
			return strcmp(b->name, "*") == 0 ||
			    str_is(f->name, f->name_len, b->name);
		return b->pat == ACL_PAT_PREFIXED && bl <= f->name_len &&
		    memcmp(f->name, b->name, bl) == 0;
	default:
		return f->pat == b->pat && (f->name == NULL ||
		    str_is(f->name, f->name_len, b->name));
	}
}

int
authacl_filter_check(const struct acl_spec *f, char *why, size_t len)
{
	const char *bad = NULL;

	if (f->res <= ACL_RES_UNKNOWN || f->res > ACL_RES_USER)
		bad = "resource type";
	else if (f->pat <= ACL_PAT_UNKNOWN || f->pat > ACL_PAT_PREFIXED)
		bad = "pattern type";
	else if (f->op <= ACL_OP_UNKNOWN || f->op > ACL_OP_DESCRIBE_TOKENS)
		bad = "operation";
	else if (f->perm <= ACL_PERM_UNKNOWN || f->perm > ACL_PERM_ALLOW)
		bad = "permission type";
	if (bad == NULL)
		return 0;
	snprintf(why, len, "invalid filter: unknown %s", bad);
	return -1;
}

/* ---- creating ---- */

/* A grant wanted by a creation: its bit and pattern. */
struct want {
	size_t		 user;
	struct auth_grant g;
	size_t		 from;		/* the creation that asked */
};

static int
name_char(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
}

/*
 * Check creation c against the file: the user it names in *ui and the
 * grant bits it needs in *bits, on the pattern in *g; 0, or -1 with why.
 */
static int
create_check(const struct auth_table *t, const struct acl_spec *c,
    size_t *ui, unsigned *bits, struct auth_grant *g, char *why, size_t wl)
{
	const struct auth_user *u;
	size_t i, max;

	*bits = 0;
	memset(g, 0, sizeof(*g));
	if (c->perm == ACL_PERM_DENY) {
		snprintf(why, wl, "the auth_file only grants: DENY cannot be "
		    "expressed (delete the ALLOW ACLs instead)");
		return -1;
	}
	if (c->perm != ACL_PERM_ALLOW) {
		snprintf(why, wl, "the permission type must be ALLOW");
		return -1;
	}
	if (c->host == NULL || !str_is(c->host, c->host_len, "*")) {
		snprintf(why, wl, "the auth_file grants to every host: the "
		    "host must be \"*\"");
		return -1;
	}
	if (c->principal == NULL || c->principal_len <= 5 ||
	    memcmp(c->principal, "User:", 5) != 0 ||
	    str_is(c->principal, c->principal_len, "User:*")) {
		snprintf(why, wl, "the principal must be User:NAME of one user "
		    "of the auth_file");
		return -1;
	}
	for (i = 0; i < t->nusers; i++) {
		u = &t->users[i];
		if (str_is(c->principal + 5, c->principal_len - 5, u->name))
			break;
	}
	if (i == t->nusers) {
		snprintf(why, wl, "no user %.*s in the auth_file (add one with "
		    "AlterUserScramCredentials first)",
		    (int)(c->principal_len > 69 ? 64 : c->principal_len - 5),
		    c->principal + 5);
		return -1;
	}
	*ui = i;
	if (c->pat != ACL_PAT_LITERAL && c->pat != ACL_PAT_PREFIXED) {
		snprintf(why, wl, "the pattern type must be LITERAL or PREFIXED");
		return -1;
	}
	if (c->res == ACL_RES_CLUSTER) {
		if (c->pat != ACL_PAT_LITERAL || c->name == NULL ||
		    !str_is(c->name, c->name_len, ACL_CLUSTER_NAME)) {
			snprintf(why, wl, "the CLUSTER resource is LITERAL "
			    ACL_CLUSTER_NAME);
			return -1;
		}
		/* The broker's rights come with admin on every topic. */
		*bits = AUTH_ADMIN;
		return 0;
	}
	if (c->res != ACL_RES_TOPIC && c->res != ACL_RES_GROUP) {
		snprintf(why, wl, "the auth_file has permissions on topics, "
		    "groups and the cluster only");
		return -1;
	}
	max = c->res == ACL_RES_GROUP ? GROUP_NAME_MAX : TOPIC_NAME_MAX;
	if (c->name == NULL || c->name_len == 0 || c->name_len > max) {
		snprintf(why, wl, "the resource name must be 1 to %zu "
		    "characters", max);
		return -1;
	}
	if (c->pat == ACL_PAT_LITERAL && str_is(c->name, c->name_len, "*"))
		;
	else {
		for (i = 0; i < c->name_len; i++)
			if (!name_char((unsigned char)c->name[i])) {
				snprintf(why, wl, "the resource name may only "
				    "hold A-Z a-z 0-9 . _ - (or be LITERAL \"*\")");
				return -1;
			}
		memcpy(g->prefix, c->name, c->name_len);
		g->prefix_len = c->name_len;
		g->exact = c->pat == ACL_PAT_LITERAL;
	}
	if (c->res == ACL_RES_TOPIC)
		switch (c->op) {
		case ACL_OP_READ:
			*bits = AUTH_CONSUME;
			return 0;
		case ACL_OP_WRITE:
			*bits = AUTH_PRODUCE;
			return 0;
		case ACL_OP_CREATE: case ACL_OP_DELETE: case ACL_OP_ALTER:
		case ACL_OP_DESCRIBE_CONFIGS: case ACL_OP_ALTER_CONFIGS:
			*bits = AUTH_ADMIN;
			return 0;
		case ACL_OP_ALL:
			*bits = AUTH_TOPIC_PERMS;
			return 0;
		case ACL_OP_DESCRIBE:
			snprintf(why, wl, "DESCRIBE on a topic cannot be granted "
			    "alone: every user with a permission on a topic "
			    "sees it (grant READ or WRITE)");
			return -1;
		default:
			snprintf(why, wl, "operation %s cannot be granted on a "
			    "topic", op_name(c->op));
			return -1;
		}
	switch (c->op) {
	case ACL_OP_READ:
		*bits = AUTH_GROUP_READ;
		return 0;
	case ACL_OP_DESCRIBE:
		*bits = AUTH_GROUP_DESCRIBE;
		return 0;
	case ACL_OP_DELETE:
		*bits = AUTH_GROUP_DELETE;
		return 0;
	case ACL_OP_ALL:
		*bits = AUTH_GROUP_PERMS;
		return 0;
	default:
		snprintf(why, wl, "operation %s cannot be granted on a group",
		    op_name(c->op));
		return -1;
	}
}

/* Does creation c (checked, for user ui) ask for binding (res, g, op)? */
static int
create_covers(const struct acl_spec *c, size_t cu, size_t ui, int8_t res,
    const struct auth_grant *g, int8_t op)
{
	int8_t pat;
	const char *name;
	size_t len;

	if (cu != ui || c->res != res || (c->op != op && c->op != ACL_OP_ALL))
		return 0;
	if (res == ACL_RES_CLUSTER)
		return 1;
	grant_pattern(g, &pat, &name, &len);
	return c->pat == pat && str_is(c->name, c->name_len, name);
}

/* Has u (grants gv[0..n)) the grant g already? */
static int
grant_has(const struct auth_grant *gv, size_t n, const struct auth_grant *g)
{
	while (n > 0)
		if (grant_same(&gv[--n], g))
			return 1;
	return 0;
}

/*
 * Is every binding of bundle bd on pattern g (of user ui) asked for by a
 * creation not refused?
 */
static int
bundle_asked(const struct bundle *bd, const struct auth_grant *g, size_t ui,
    const struct acl_spec *c, const size_t *cu, const int *refused, size_t n)
{
	struct auth_grant cl;
	size_t j, m;
	int ok = 1;

	for (j = 0; ok && j < BUNDLE_MAX && bd->ops[j] != ACL_OP_UNKNOWN; j++)
		for (m = 0, ok = 0; m < n && !ok; m++)
			ok = !refused[m] && create_covers(&c[m], cu[m], ui,
			    bd->res, g, bd->ops[j]);
	if (ok && g->perm == AUTH_ADMIN && g->prefix_len == 0) {
		memset(&cl, 0, sizeof(cl));
		for (m = 0, ok = 0; m < n && !ok; m++)
			ok = !refused[m] && create_covers(&c[m], cu[m], ui,
			    ACL_RES_CLUSTER, &cl, ACL_OP_ALL);
	}
	return ok;
}

/* The pattern creation c (checked) grants on: every topic for the cluster. */
static void
create_grant(const struct auth_table *t, const struct acl_spec *c,
    struct auth_grant *g)
{
	char why[ACL_WHY_MAX];
	unsigned bits;
	size_t ui;

	(void)create_check(t, c, &ui, &bits, g, why, sizeof(why));
	if (c->res == ACL_RES_CLUSTER)
		memset(g, 0, sizeof(*g));
}

int
authacl_create(const char *text, size_t len, const struct auth_table *t,
    const struct acl_spec *c, size_t n, int *refused,
    char (*why)[ACL_WHY_MAX], char **out, size_t *outlen)
{
	struct auth_grant **ng = NULL, *gv, g;
	size_t *nng = NULL, *cu = NULL, i, k, ui;
	unsigned *bits = NULL;
	const struct bundle *bd;
	char ops[160];
	int changed = 0, rc = -1, again;

	*out = NULL;
	*outlen = 0;
	if ((bits = calloc(n + 1, sizeof(*bits))) == NULL ||
	    (cu = calloc(n + 1, sizeof(*cu))) == NULL ||
	    (ng = calloc(t->nusers + 1, sizeof(*ng))) == NULL ||
	    (nng = calloc(t->nusers + 1, sizeof(*nng))) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		why[i][0] = '\0';
		refused[i] = create_check(t, &c[i], &cu[i], &bits[i], &g,
		    why[i], ACL_WHY_MAX) == -1;
	}
	/*
	 * Each bit a creation needs is a bundle: it is added only when the
	 * file has it already or every one of its bindings is asked for by
	 * a creation not refused.  Refusing one may leave another's bundle
	 * short, so until nothing changes.
	 */
	do {
		again = 0;
		for (i = 0; i < n; i++) {
			if (refused[i])
				continue;
			ui = cu[i];
			create_grant(t, &c[i], &g);
			for (k = 0; k < NBUNDLES; k++) {
				bd = &bundles[k];
				if (!(bits[i] & bd->bit))
					continue;
				g.perm = bd->bit;
				if (grant_has(t->users[ui].grants,
				    t->users[ui].ngrants, &g) ||
				    bundle_asked(bd, &g, ui, c, cu, refused, n))
					continue;
				bundle_ops(bd, g.perm == AUTH_ADMIN &&
				    g.prefix_len == 0, ops, sizeof(ops));
				refused[i] = 1;
				again = 1;
				snprintf(why[i], ACL_WHY_MAX, "the auth_file's "
				    "%s permission is %s together: create "
				    "those ACLs in one request", bd->word, ops);
				break;
			}
		}
	} while (again);
	for (i = 0; i < n; i++) {
		if (refused[i])
			continue;
		ui = cu[i];
		create_grant(t, &c[i], &g);
		for (k = 0; k < NBUNDLES; k++) {
			if (!(bits[i] & bundles[k].bit))
				continue;
			g.perm = bundles[k].bit;
			if (ng[ui] == NULL) {
				nng[ui] = t->users[ui].ngrants;
				if ((ng[ui] = calloc(nng[ui] + 1,
				    sizeof(*gv))) == NULL)
					goto out;
				if (nng[ui] > 0)
					memcpy(ng[ui], t->users[ui].grants,
					    nng[ui] * sizeof(*gv));
			}
			if (grant_has(ng[ui], nng[ui], &g))
				continue;
			if ((gv = reallocarray(ng[ui], nng[ui] + 1,
			    sizeof(*gv))) == NULL)
				goto out;
			ng[ui] = gv;
			gv[nng[ui]++] = g;
			changed = 1;
		}
	}
	rc = 0;
	if (changed)
		rc = authacl_rewrite(text, len, t,
		    (const struct auth_grant *const *)ng, nng, out, outlen);
out:
	for (ui = 0; ng != NULL && ui < t->nusers; ui++)
		free(ng[ui]);
	free(ng);
	free(nng);
	free(bits);
	free(cu);
	return rc;
}

/* ---- deleting ---- */

int
authacl_delete(const char *text, size_t len, const struct auth_table *t,
    const struct acl_spec *f, size_t n, struct acl_deleted *d, char **out,
    size_t *outlen)
{
	struct acl_binding *all = NULL;
	struct auth_grant **ng = NULL;
	size_t *nng = NULL, nall, i, j, k, ui;
	uint8_t *hit = NULL, *gone;
	unsigned char **kill = NULL;
	const struct bundle *bd;
	char ops[160];
	int changed = 0, rc = -1;

	*out = NULL;
	*outlen = 0;
	memset(d, 0, n * sizeof(*d));
	if (all_bindings(t, &all, &nall) == -1)
		return -1;
	if ((hit = calloc(nall + 1, 1)) == NULL ||
	    (kill = calloc(t->nusers + 1, sizeof(*kill))) == NULL ||
	    (ng = calloc(t->nusers + 1, sizeof(*ng))) == NULL ||
	    (nng = calloc(t->nusers + 1, sizeof(*nng))) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		if (authacl_filter_check(&f[i], d[i].why, sizeof(d[i].why)) ==
		    -1) {
			d[i].refused = 1;
			continue;
		}
		for (j = 0; j < nall; j++)
			if (authacl_match(&f[i], &all[j]))
				hit[j] = 1;
	}
	/* A grant goes when the filters matched every binding of it. */
	for (ui = 0; ui < t->nusers; ui++) {
		if (t->users[ui].ngrants == 0)
			continue;
		if ((kill[ui] = calloc(t->users[ui].ngrants, 1)) == NULL)
			goto out;
	}
	for (j = 0; j < nall; j++)
		if (hit[j])
			kill[all[j].user][all[j].grant] = 1;
	for (j = 0; j < nall; j++)
		if (!hit[j])
			kill[all[j].user][all[j].grant] = 0;
	for (i = 0; i < n; i++) {
		if (d[i].refused)
			continue;
		for (j = 0, k = 0; j < nall; j++)
			k += authacl_match(&f[i], &all[j]);
		if (k == 0)
			continue;
		if ((d[i].m = calloc(k, sizeof(*d[i].m))) == NULL)
			goto out;
		for (j = 0; j < nall; j++) {
			struct acl_match *m;

			if (!authacl_match(&f[i], &all[j]))
				continue;
			m = &d[i].m[d[i].n++];
			m->b = all[j];
			if (kill[all[j].user][all[j].grant])
				continue;
			bd = bundle_of(t->users[all[j].user].grants[
			    all[j].grant].perm);
			bundle_ops(bd, bd->bit == AUTH_ADMIN &&
			    t->users[all[j].user].grants[all[j].grant].
			    prefix_len == 0, ops, sizeof(ops));
			m->refused = 1;
			snprintf(m->why, sizeof(m->why), "kept: the auth_file's "
			    "%s permission is %s together: delete those ACLs "
			    "in one request", bd->word, ops);
		}
	}
	for (ui = 0; ui < t->nusers; ui++) {
		const struct auth_user *u = &t->users[ui];

		for (j = 0, k = 0; j < u->ngrants; j++)
			k += kill[ui] != NULL && kill[ui][j];
		if (k == 0)
			continue;
		/* Repeats of a deleted grant (listed once) go with it. */
		gone = kill[ui];
		for (j = 0; j < u->ngrants; j++)
			for (k = 0; k < j; k++)
				if (gone[k] && grant_same(&u->grants[k],
				    &u->grants[j]))
					gone[j] = 1;
		if ((ng[ui] = calloc(u->ngrants, sizeof(**ng))) == NULL)
			goto out;
		for (j = 0; j < u->ngrants; j++)
			if (!gone[j])
				ng[ui][nng[ui]++] = u->grants[j];
		changed = 1;
	}
	rc = 0;
	if (changed)
		rc = authacl_rewrite(text, len, t,
		    (const struct auth_grant *const *)ng, nng, out, outlen);
out:
	if (rc == -1)
		authacl_deleted_free(d, n);
	for (ui = 0; ui < t->nusers; ui++) {
		if (ng != NULL)
			free(ng[ui]);
		if (kill != NULL)
			free(kill[ui]);
	}
	free(ng);
	free(nng);
	free(kill);
	free(hit);
	free(all);
	return rc;
}

void
authacl_deleted_free(struct acl_deleted *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(d[i].m);
		d[i].m = NULL;
		d[i].n = 0;
	}
}

/* ---- the text ---- */

/* The permissions field of grants g[0..n) (malloc'd, *len), or NULL. */
static char *
grants_text(const struct auth_grant *g, size_t n, size_t *len)
{
	const struct bundle *bd;
	size_t i, cap = 1, k = 0;
	char *p;
	int w;

	for (i = 0; i < n; i++)
		cap += 16 + 2 + g[i].prefix_len;
	if ((p = malloc(cap)) == NULL)
		return NULL;
	p[0] = '\0';
	for (i = 0; i < n; i++) {
		if ((bd = bundle_of(g[i].perm)) == NULL)
			continue;
		w = snprintf(p + k, cap - k, "%s%s%s%.*s", k > 0 ? "," : "",
		    bd->word, g[i].prefix_len == 0 ? "" : g[i].exact ? "==" :
		    "=", (int)g[i].prefix_len, g[i].prefix);
		if (w < 0 || (size_t)w >= cap - k)
			break;
		k += (size_t)w;
	}
	*len = k;
	return p;
}

int
authacl_rewrite(const char *text, size_t len, const struct auth_table *t,
    const struct auth_grant *const *g, const size_t *ng, char **out,
    size_t *outlen)
{
	struct auth_line_edit *e;
	size_t ui;
	int rc = -1;

	if ((e = calloc(t->nusers + 1, sizeof(*e))) == NULL)
		return -1;
	for (ui = 0; ui < t->nusers; ui++)
		if (g[ui] != NULL && (e[ui].perms = grants_text(g[ui], ng[ui],
		    &e[ui].perms_len)) == NULL)
			goto out;
	rc = auth_text_edit(text, len, t, e, NULL, 0, out, outlen);
out:
	for (ui = 0; ui < t->nusers; ui++)
		free((char *)(uintptr_t)e[ui].perms);
	free(e);
	return rc;
}
