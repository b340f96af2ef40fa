/*
 * The auth_file as Kafka ACLs and SCRAM credentials (common/authacl.c,
 * common/authscram.c, common/authwrite.c): the bindings each grant
 * stands for, filters, creations accepted only when the file can say
 * exactly them (bundles, refusals with their messages), deletions of
 * whole bundles, SCRAM upsertions and deletions with Kafka's errors,
 * the text kept byte for byte outside the fields changed, and the
 * atomic replace keeping the file's mode.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "common/authacl.h"
#include "common/authfile.h"
#include "common/authscram.h"
#include "common/authwrite.h"
#include "tests/harness.h"

static const char base[] =
    "# users\n"
    "alice:alice-pw:produce,consume,admin,group-read  \n"
    "\n"
    "bob:b:o:b:consume=in.,group-describe==g1\r\n"
    "carol:c-pw:\n";

static struct auth_table t;

static int
load(const char *text)
{
	char err[256];

	auth_table_free(&t);
	return auth_parse("users", text, strlen(text), &t, err, sizeof(err));
}

/* "RES:NAME:PAT:PRINCIPAL:OP" of every binding, one per line. */
static void
list(char *buf, size_t len)
{
	static const char *const res[] = { "?", "ANY", "TOPIC", "GROUP",
	    "CLUSTER" };
	static const char *const pat[] = { "?", "ANY", "MATCH", "LITERAL",
	    "PREFIXED" };
	struct acl_binding *b;
	size_t n, i, k = 0;

	buf[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(authacl_list(&t, &b, &n), 0);
	for (i = 0; i < n && k < len; i++) {
		CU_ASSERT_EQUAL(b[i].perm, ACL_PERM_ALLOW);
		k += (size_t)snprintf(buf + k, len - k, "%s:%s:%s:%s:%d\n",
		    res[b[i].res], b[i].name, pat[b[i].pat], b[i].principal,
		    b[i].op);
	}
	free(b);
}

static struct acl_spec
spec(int8_t res, const char *name, int8_t pat, const char *principal,
    int8_t op, int8_t perm)
{
	struct acl_spec s;

	memset(&s, 0, sizeof(s));
	s.res = res;
	s.pat = pat;
	s.op = op;
	s.perm = perm;
	s.name = name;
	s.name_len = name != NULL ? strlen(name) : 0;
	s.principal = principal;
	s.principal_len = principal != NULL ? strlen(principal) : 0;
	s.host = "*";
	s.host_len = 1;
	return s;
}

static void
test_bindings_of_the_file(void)
{
	char buf[2048];

	CU_ASSERT_EQUAL_FATAL(load(base), 0);
	/* `group-describe==g1` is g1 alone (LITERAL), not g10. */
	CU_ASSERT(auth_user_may_group(&t.users[1], AUTH_GROUP_DESCRIBE, "g1",
	    2));
	CU_ASSERT(!auth_user_may_group(&t.users[1], AUTH_GROUP_DESCRIBE, "g10",
	    3));
	list(buf, sizeof(buf));
	/* Sorted by resource type, pattern, name, principal, operation. */
	CU_ASSERT_STRING_EQUAL(buf,
	    "TOPIC:*:LITERAL:User:alice:3\n"		/* READ */
	    "TOPIC:*:LITERAL:User:alice:4\n"		/* WRITE */
	    "TOPIC:*:LITERAL:User:alice:5\n"		/* CREATE */
	    "TOPIC:*:LITERAL:User:alice:6\n"		/* DELETE */
	    "TOPIC:*:LITERAL:User:alice:7\n"		/* ALTER */
	    "TOPIC:*:LITERAL:User:alice:10\n"		/* DESCRIBE_CONFIGS */
	    "TOPIC:*:LITERAL:User:alice:11\n"		/* ALTER_CONFIGS */
	    "TOPIC:in.:PREFIXED:User:bob:3\n"
	    "GROUP:*:LITERAL:User:alice:3\n"
	    "GROUP:g1:LITERAL:User:bob:8\n"		/* DESCRIBE */
	    "CLUSTER:kafka-cluster:LITERAL:User:alice:2\n");	/* ALL */
}

static void
test_filters(void)
{
	struct acl_binding *b;
	struct acl_spec f;
	char why[ACL_WHY_MAX];
	size_t n, i, hits;

	CU_ASSERT_EQUAL_FATAL(load(base), 0);
	CU_ASSERT_EQUAL_FATAL(authacl_list(&t, &b, &n), 0);
	/* MATCH: what applies to topic in.x: alice's "*" and bob's in. */
	f = spec(ACL_RES_TOPIC, "in.x", ACL_PAT_MATCH, NULL, ACL_OP_READ,
	    ACL_PERM_ANY);
	f.host = NULL;
	for (i = 0, hits = 0; i < n; i++)
		hits += authacl_match(&f, &b[i]);
	CU_ASSERT_EQUAL(hits, 2);
	/* LITERAL in.x: nothing is granted on that name literally. */
	f.pat = ACL_PAT_LITERAL;
	for (i = 0, hits = 0; i < n; i++)
		hits += authacl_match(&f, &b[i]);
	CU_ASSERT_EQUAL(hits, 0);
	/* ANY principal User:bob, any resource. */
	f = spec(ACL_RES_ANY, NULL, ACL_PAT_ANY, "User:bob", ACL_OP_ANY,
	    ACL_PERM_ANY);
	for (i = 0, hits = 0; i < n; i++)
		hits += authacl_match(&f, &b[i]);
	CU_ASSERT_EQUAL(hits, 2);
	/* Host 10.0.0.1 matches nothing: every grant is for host "*". */
	f.host = "10.0.0.1";
	f.host_len = 8;
	for (i = 0, hits = 0; i < n; i++)
		hits += authacl_match(&f, &b[i]);
	CU_ASSERT_EQUAL(hits, 0);
	free(b);
	f = spec(ACL_RES_UNKNOWN, NULL, ACL_PAT_ANY, NULL, ACL_OP_ANY,
	    ACL_PERM_ANY);
	CU_ASSERT_EQUAL(authacl_filter_check(&f, why, sizeof(why)), -1);
	CU_ASSERT_STRING_EQUAL(why, "invalid filter: unknown resource type");
	f.res = ACL_RES_ANY;
	f.op = ACL_OP_UNKNOWN;
	CU_ASSERT_EQUAL(authacl_filter_check(&f, why, sizeof(why)), -1);
	CU_ASSERT_STRING_EQUAL(why, "invalid filter: unknown operation");
}

/* Create c[0..n) on base: the text (or "" unchanged) and the refusals. */
static char *
create(const struct acl_spec *c, size_t n, int *refused,
    char (*why)[ACL_WHY_MAX])
{
	char *out;
	size_t outlen;

	CU_ASSERT_EQUAL_FATAL(load(base), 0);
	CU_ASSERT_EQUAL_FATAL(authacl_create(base, strlen(base), &t, c, n,
	    refused, why, &out, &outlen), 0);
	if (out == NULL)
		return strdup("");
	CU_ASSERT_EQUAL(strlen(out), outlen);
	return out;
}

static void
test_create_maps_exactly(void)
{
	struct acl_spec c[8];
	int refused[8];
	char why[8][ACL_WHY_MAX], *out;

	/* READ on topic t, LITERAL: consume==t, nothing more. */
	c[0] = spec(ACL_RES_TOPIC, "t", ACL_PAT_LITERAL, "User:carol",
	    ACL_OP_READ, ACL_PERM_ALLOW);
	/* WRITE on the topics under logs., PREFIXED. */
	c[1] = spec(ACL_RES_TOPIC, "logs.", ACL_PAT_PREFIXED, "User:carol",
	    ACL_OP_WRITE, ACL_PERM_ALLOW);
	/* Every group: LITERAL "*". */
	c[2] = spec(ACL_RES_GROUP, "*", ACL_PAT_LITERAL, "User:carol",
	    ACL_OP_READ, ACL_PERM_ALLOW);
	/* What bob has already: no change for him. */
	c[3] = spec(ACL_RES_TOPIC, "in.", ACL_PAT_PREFIXED, "User:bob",
	    ACL_OP_READ, ACL_PERM_ALLOW);
	out = create(c, 4, refused, why);
	CU_ASSERT(!refused[0] && !refused[1] && !refused[2] && !refused[3]);
	/* Only carol's field changed; comments, blanks, CR and spaces kept. */
	CU_ASSERT_STRING_EQUAL(out,
	    "# users\n"
	    "alice:alice-pw:produce,consume,admin,group-read  \n"
	    "\n"
	    "bob:b:o:b:consume=in.,group-describe==g1\r\n"
	    "carol:c-pw:consume==t,produce=logs.,group-read\n");
	free(out);
	/* ALL on a topic is produce, consume and admin. */
	c[0] = spec(ACL_RES_TOPIC, "x.", ACL_PAT_PREFIXED, "User:carol",
	    ACL_OP_ALL, ACL_PERM_ALLOW);
	out = create(c, 1, refused, why);
	CU_ASSERT(!refused[0]);
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
	    "carol:c-pw:produce=x.,consume=x.,admin=x.\n"));
	free(out);
}

static void
test_create_bundles(void)
{
	static const int8_t admin_ops[] = { ACL_OP_CREATE, ACL_OP_DELETE,
	    ACL_OP_ALTER, ACL_OP_DESCRIBE_CONFIGS, ACL_OP_ALTER_CONFIGS };
	struct acl_spec c[8];
	int refused[8], i;
	char why[8][ACL_WHY_MAX], *out;

	/* CREATE alone would widen to DELETE etc.: refused, file unchanged. */
	c[0] = spec(ACL_RES_TOPIC, "t", ACL_PAT_LITERAL, "User:carol",
	    ACL_OP_CREATE, ACL_PERM_ALLOW);
	out = create(c, 1, refused, why);
	CU_ASSERT(refused[0]);
	CU_ASSERT_STRING_EQUAL(why[0], "the auth_file's admin permission is "
	    "CREATE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS together: "
	    "create those ACLs in one request");
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	/* All five in one request: admin==t. */
	for (i = 0; i < 5; i++)
		c[i] = spec(ACL_RES_TOPIC, "t", ACL_PAT_LITERAL, "User:carol",
		    admin_ops[i], ACL_PERM_ALLOW);
	out = create(c, 5, refused, why);
	for (i = 0; i < 5; i++)
		CU_ASSERT(!refused[i]);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "carol:c-pw:admin==t\n"));
	free(out);
	/* Admin on every topic is the cluster's rights too: ask for both. */
	for (i = 0; i < 5; i++)
		c[i] = spec(ACL_RES_TOPIC, "*", ACL_PAT_LITERAL, "User:carol",
		    admin_ops[i], ACL_PERM_ALLOW);
	out = create(c, 5, refused, why);
	CU_ASSERT(refused[0] && refused[4]);
	CU_ASSERT_STRING_EQUAL(why[0], "the auth_file's admin permission is "
	    "CREATE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS on the "
	    "topics and ALL on the CLUSTER kafka-cluster together: create "
	    "those ACLs in one request");
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	c[5] = spec(ACL_RES_CLUSTER, "kafka-cluster", ACL_PAT_LITERAL,
	    "User:carol", ACL_OP_ALL, ACL_PERM_ALLOW);
	out = create(c, 6, refused, why);
	for (i = 0; i < 6; i++)
		CU_ASSERT(!refused[i]);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "carol:c-pw:admin\n"));
	free(out);
	/* The cluster alone is refused: it would give admin on the topics. */
	out = create(&c[5], 1, refused, why);
	CU_ASSERT(refused[0]);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
}

static void
test_create_refusals(void)
{
	static const struct {
		struct acl_spec s;
		const char *why;
	} cases[] = {
		{ { ACL_RES_TOPIC, ACL_PAT_LITERAL, ACL_OP_READ, ACL_PERM_DENY,
		    "t", 1, "User:carol", 10, "*", 1 },
		  "the auth_file only grants: DENY cannot be expressed "
		  "(delete the ALLOW ACLs instead)" },
		{ { ACL_RES_TOPIC, ACL_PAT_LITERAL, ACL_OP_READ, ACL_PERM_ALLOW,
		    "t", 1, "User:carol", 10, "10.0.0.1", 8 },
		  "the auth_file grants to every host: the host must be \"*\"" },
		{ { ACL_RES_TOPIC, ACL_PAT_LITERAL, ACL_OP_DESCRIBE,
		    ACL_PERM_ALLOW, "t", 1, "User:carol", 10, "*", 1 },
		  "DESCRIBE on a topic cannot be granted alone: every user "
		  "with a permission on a topic sees it (grant READ or WRITE)" },
		{ { ACL_RES_TOPIC, ACL_PAT_LITERAL, ACL_OP_READ, ACL_PERM_ALLOW,
		    "t", 1, "User:*", 6, "*", 1 },
		  "the principal must be User:NAME of one user of the "
		  "auth_file" },
		{ { ACL_RES_TOPIC, ACL_PAT_LITERAL, ACL_OP_READ, ACL_PERM_ALLOW,
		    "t", 1, "User:zed", 8, "*", 1 },
		  "no user zed in the auth_file (add one with "
		  "AlterUserScramCredentials first)" },
		{ { ACL_RES_TRANSACTIONAL_ID, ACL_PAT_LITERAL, ACL_OP_WRITE,
		    ACL_PERM_ALLOW, "t", 1, "User:carol", 10, "*", 1 },
		  "the auth_file has permissions on topics, groups and the "
		  "cluster only" },
		{ { ACL_RES_TOPIC, ACL_PAT_MATCH, ACL_OP_READ, ACL_PERM_ALLOW,
		    "t", 1, "User:carol", 10, "*", 1 },
		  "the pattern type must be LITERAL or PREFIXED" },
		{ { ACL_RES_TOPIC, ACL_PAT_LITERAL, ACL_OP_READ, ACL_PERM_ALLOW,
		    "a b", 3, "User:carol", 10, "*", 1 },
		  "the resource name may only hold A-Z a-z 0-9 . _ - (or be "
		  "LITERAL \"*\")" },
		{ { ACL_RES_GROUP, ACL_PAT_LITERAL, ACL_OP_WRITE, ACL_PERM_ALLOW,
		    "g", 1, "User:carol", 10, "*", 1 },
		  "operation WRITE cannot be granted on a group" },
		{ { ACL_RES_CLUSTER, ACL_PAT_PREFIXED, ACL_OP_ALL,
		    ACL_PERM_ALLOW, "kafka", 5, "User:carol", 10, "*", 1 },
		  "the CLUSTER resource is LITERAL kafka-cluster" },
	};
	int refused[1];
	char why[1][ACL_WHY_MAX], *out;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		out = create(&cases[i].s, 1, refused, why);
		CU_ASSERT(refused[0]);
		CU_ASSERT_STRING_EQUAL(why[0], cases[i].why);
		CU_ASSERT_STRING_EQUAL(out, "");
		free(out);
	}
}

static void
test_delete_whole_bundles(void)
{
	struct acl_spec f[2];
	struct acl_deleted d[2];
	char *out;
	size_t outlen;

	CU_ASSERT_EQUAL_FATAL(load(base), 0);
	/* bob's READ on in. (PREFIXED): his consume=in. goes. */
	f[0] = spec(ACL_RES_TOPIC, "in.", ACL_PAT_PREFIXED, "User:bob",
	    ACL_OP_READ, ACL_PERM_ANY);
	CU_ASSERT_EQUAL_FATAL(authacl_delete(base, strlen(base), &t, f, 1, d,
	    &out, &outlen), 0);
	CU_ASSERT_EQUAL(d[0].refused, 0);
	CU_ASSERT_EQUAL_FATAL(d[0].n, 1);
	CU_ASSERT_EQUAL(d[0].m[0].refused, 0);
	CU_ASSERT_STRING_EQUAL(d[0].m[0].b.name, "in.");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out,
	    "# users\n"
	    "alice:alice-pw:produce,consume,admin,group-read  \n"
	    "\n"
	    "bob:b:o:b:group-describe==g1\r\n"
	    "carol:c-pw:\n");
	free(out);
	authacl_deleted_free(d, 1);
	/* alice's CREATE on "*": part of admin, kept with a message. */
	f[0] = spec(ACL_RES_TOPIC, "*", ACL_PAT_LITERAL, "User:alice",
	    ACL_OP_CREATE, ACL_PERM_ANY);
	CU_ASSERT_EQUAL_FATAL(authacl_delete(base, strlen(base), &t, f, 1, d,
	    &out, &outlen), 0);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL_FATAL(d[0].n, 1);
	CU_ASSERT_EQUAL(d[0].m[0].refused, 1);
	CU_ASSERT_STRING_EQUAL(d[0].m[0].why, "kept: the auth_file's admin "
	    "permission is CREATE, DELETE, ALTER, DESCRIBE_CONFIGS, "
	    "ALTER_CONFIGS on the topics and ALL on the CLUSTER kafka-cluster "
	    "together: delete those ACLs in one request");
	authacl_deleted_free(d, 1);
	/* Every ACL of alice (ANY): all her grants go, in one request. */
	f[0] = spec(ACL_RES_ANY, NULL, ACL_PAT_ANY, "User:alice", ACL_OP_ANY,
	    ACL_PERM_ANY);
	f[1] = spec(ACL_RES_UNKNOWN, NULL, ACL_PAT_ANY, NULL, ACL_OP_ANY,
	    ACL_PERM_ANY);
	CU_ASSERT_EQUAL_FATAL(authacl_delete(base, strlen(base), &t, f, 2, d,
	    &out, &outlen), 0);
	CU_ASSERT_EQUAL(d[0].n, 9);	/* 1 + 1 + 5 + cluster + 1 */
	CU_ASSERT_EQUAL(d[1].refused, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "alice:alice-pw:  \n"));
	free(out);
	authacl_deleted_free(d, 2);
}

/* The salted password of pw (PBKDF2-HMAC-SHA-256), 32 bytes. */
static void
salted256(const char *pw, const uint8_t *salt, size_t slen, int it,
    uint8_t out[32])
{
	CU_ASSERT_EQUAL(PKCS5_PBKDF2_HMAC(pw, (int)strlen(pw), salt, (int)slen,
	    it, EVP_sha256(), 32, out), 1);
}

static void
test_scram_alter(void)
{
	static const uint8_t salt[] = "0123456789abcdef";
	struct scram_alter a[3];
	struct scram_result res[3];
	const struct auth_user *u;
	uint8_t sp[32], stored[64], server[64];
	int32_t it[2];
	char *out, *out2;
	size_t outlen, outlen2, nres;

	CU_ASSERT_EQUAL_FATAL(load(base), 0);
	salted256("dave-pw", salt, 16, 8192, sp);
	memset(a, 0, sizeof(a));
	a[0].user = "dave";
	a[0].user_len = 4;
	a[0].mech = SCRAM_MECH_SHA256;
	a[0].iterations = 8192;
	a[0].salt = salt;
	a[0].salt_len = 16;
	a[0].salted = sp;
	a[0].salted_len = 32;
	CU_ASSERT_EQUAL_FATAL(authscram_alter(base, strlen(base), &t, a, 1,
	    res, &nres, &out, &outlen), 0);
	CU_ASSERT_EQUAL(nres, 1);
	CU_ASSERT_EQUAL(res[0].err, AUTHSCRAM_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	/* The old text intact, a new line for dave with no permission. */
	CU_ASSERT_EQUAL(memcmp(out, base, strlen(base)), 0);
	CU_ASSERT_EQUAL(strncmp(out + strlen(base), "dave:{scram}sha-256$8192$"
	    "MDEyMzQ1Njc4OWFiY2RlZg==$", 49), 0);
	CU_ASSERT_EQUAL(out[outlen - 2], ':');
	CU_ASSERT_EQUAL(load(out), 0);
	u = auth_find_in(&t, "dave", 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT(u->scram_only);
	CU_ASSERT_EQUAL(u->ngrants, 0);
	CU_ASSERT(u->scram[AUTH_SCRAM_SHA256].set);
	CU_ASSERT(!u->scram[AUTH_SCRAM_SHA512].set);
	auth_scram_keys(AUTH_SCRAM_SHA256, sp, stored, server);
	CU_ASSERT_EQUAL(memcmp(u->scram[0].stored_key, stored, 32), 0);
	CU_ASSERT_EQUAL(memcmp(u->scram[0].server_key, server, 32), 0);
	CU_ASSERT_EQUAL(authscram_describe(u, it), 1);
	CU_ASSERT_EQUAL(it[0], 8192);
	CU_ASSERT_EQUAL(it[1], 0);
	/* A password user has both, at 4096. */
	CU_ASSERT_EQUAL(authscram_describe(auth_find_in(&t, "bob", 3), it), 2);
	CU_ASSERT_EQUAL(it[0], 4096);
	CU_ASSERT_EQUAL(it[1], 4096);

	/* Delete dave's only credential: the line and no way in. */
	a[1] = a[0];
	a[1].del = 1;
	CU_ASSERT_EQUAL_FATAL(authscram_alter(out, outlen, &t, &a[1], 1, res,
	    &nres, &out2, &outlen2), 0);
	CU_ASSERT_EQUAL(res[0].err, AUTHSCRAM_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out2);
	CU_ASSERT_EQUAL(memcmp(out2 + strlen(base), "dave:{scram}:\n", 14), 0);
	CU_ASSERT_EQUAL(outlen2, strlen(base) + 14);
	free(out2);
	free(out);

	/* Kafka's refusals, nothing written. */
	CU_ASSERT_EQUAL_FATAL(load(base), 0);
	a[0].mech = 3;
	a[1] = a[0];
	a[1].mech = SCRAM_MECH_SHA256;
	a[1].user = "erin";
	a[1].iterations = 4095;
	a[2] = a[1];
	a[2].user = "fred";
	a[2].iterations = 16385;
	CU_ASSERT_EQUAL_FATAL(authscram_alter(base, strlen(base), &t, a, 3,
	    res, &nres, &out, &outlen), 0);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL_FATAL(nres, 3);
	CU_ASSERT_EQUAL(res[0].err, AUTHSCRAM_MECHANISM);
	CU_ASSERT_STRING_EQUAL(res[0].why, "Unknown SCRAM mechanism");
	CU_ASSERT_EQUAL(res[1].err, AUTHSCRAM_UNACCEPTABLE);
	CU_ASSERT_STRING_EQUAL(res[1].why, "Too few iterations");
	CU_ASSERT_EQUAL(res[2].err, AUTHSCRAM_UNACCEPTABLE);
	CU_ASSERT_STRING_EQUAL(res[2].why, "Too many iterations");
	/* A deletion of nothing; of a password's; a user twice. */
	memset(a, 0, sizeof(a));
	a[0].user = "zed";
	a[0].user_len = 3;
	a[0].del = 1;
	a[0].mech = SCRAM_MECH_SHA512;
	a[1] = a[0];
	a[1].user = "bob";
	a[2] = a[1];
	a[2].mech = SCRAM_MECH_SHA256;
	CU_ASSERT_EQUAL_FATAL(authscram_alter(base, strlen(base), &t, a, 3,
	    res, &nres, &out, &outlen), 0);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL_FATAL(nres, 2);
	CU_ASSERT_EQUAL(res[0].err, AUTHSCRAM_NOT_FOUND);
	CU_ASSERT_STRING_EQUAL(res[0].why, "Attempt to delete a user "
	    "credential that does not exist");
	/* bob's first deletion fails (a password's): that error stays. */
	CU_ASSERT_EQUAL(res[1].err, AUTHSCRAM_PASSWORD);
	a[1].user = "carol";
	a[2].user = "carol";
	a[1].del = a[2].del = 0;
	a[1].iterations = a[2].iterations = 4096;
	a[1].salt = a[2].salt = salt;
	a[1].salt_len = a[2].salt_len = 16;
	a[1].salted = a[2].salted = sp;
	a[1].salted_len = a[2].salted_len = 32;
	a[1].mech = SCRAM_MECH_SHA256;
	CU_ASSERT_EQUAL_FATAL(authscram_alter(base, strlen(base), &t, &a[1], 2,
	    res, &nres, &out, &outlen), 0);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL_FATAL(nres, 1);
	CU_ASSERT_EQUAL(res[0].err, AUTHSCRAM_DUPLICATE);
	/* A SHA-512 credential needs a 64-byte salted password. */
	a[1].mech = SCRAM_MECH_SHA512;
	CU_ASSERT_EQUAL_FATAL(authscram_alter(base, strlen(base), &t, &a[1], 1,
	    res, &nres, &out, &outlen), 0);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL(res[0].err, AUTHSCRAM_UNACCEPTABLE);
	CU_ASSERT_STRING_EQUAL(res[0].why, "a SCRAM-SHA-512 salted password "
	    "is 64 bytes");
}

static void
test_scram_secret_parse(void)
{
	char err[256];

	/* A bad {scram} field names the line, never the secret. */
	CU_ASSERT_EQUAL(load("u:{scram}sha-256$100$YQ==$YQ==$YQ==:\n"), -1);
	CU_ASSERT_EQUAL(auth_parse("users", "u:{scram}sha-1$4096$YQ==:\n", 26,
	    &t, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(strncmp(err, "users:1: user u: expected {scram} and "
	    "sha-256$", 46), 0);
	/* No credential at all: a user who cannot log in by a secret. */
	CU_ASSERT_EQUAL_FATAL(load("u:{scram}:consume\n"), 0);
	CU_ASSERT(t.users[0].scram_only);
	CU_ASSERT_PTR_NULL(t.users[0].secret);
	CU_ASSERT_EQUAL(t.users[0].secret_len, 0);
}

static void
test_replace_keeps_mode(void)
{
	char *dir = test_mkdtemp("authacl"), path[512], *text;
	struct stat st;
	size_t len;
	FILE *f;
	int lock;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof(path), "%s/users", dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "w"));
	fputs("a:b:\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(chmod(path, 0640), 0);
	CU_ASSERT((lock = authfile_lock(path)) >= 0);
	CU_ASSERT_EQUAL(authfile_replace(path, lock, "a:c:consume\n", 12), 0);
	authfile_unlock(lock);
	CU_ASSERT_EQUAL(authfile_read(path, &text, &len, NULL), 0);
	CU_ASSERT_EQUAL(len, 12);
	CU_ASSERT_STRING_EQUAL(text, "a:c:consume\n");
	authfile_text_free(text, len);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
	test_rmtree(dir);
	free(dir);
}

static int
cleanup(void)
{
	auth_table_free(&t);
	return 0;
}

TEST_SUITE("authacl", NULL, cleanup,
    { "the file's grants as ACL bindings", test_bindings_of_the_file },
    { "filters: MATCH, LITERAL, ANY, hosts, bad filters", test_filters },
    { "creations map exactly, text kept", test_create_maps_exactly },
    { "bundles: created whole or refused", test_create_bundles },
    { "refusals say why", test_create_refusals },
    { "deletions of whole bundles", test_delete_whole_bundles },
    { "SCRAM upsert, delete and Kafka's refusals", test_scram_alter },
    { "{scram} secrets parse", test_scram_secret_parse },
    { "the atomic replace keeps the mode", test_replace_keeps_mode });
