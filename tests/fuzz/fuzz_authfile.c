/*
 * libFuzzer target: the auth_file parser.  A parse either fails with a
 * "name:line:" message that never contains a secret of the input, or
 * yields users whose names, secrets and topic prefixes are in bounds; a
 * user with SCRAM credentials ({scram}) has no password, and its
 * credentials are in Kafka's bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/authfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct auth_table t;
	const struct auth_user *u;
	char err[512];
	size_t i, j;
	int m;

	if (auth_parse("fuzz", (const char *)data, size, &t, err,
	    sizeof(err)) == -1) {
		if (strncmp(err, "fuzz:", 5) != 0 || t.nusers != 0)
			abort();
		return 0;
	}
	for (i = 0; i < t.nusers; i++) {
		u = &t.users[i];
		if (u->name_len == 0 || u->name_len > AUTH_USER_MAX ||
		    strlen(u->name) != u->name_len)
			abort();
		if (u->scram_only ? u->secret != NULL || u->secret_len != 0 :
		    u->secret_len == 0 || u->secret_len > AUTH_SECRET_MAX)
			abort();
		for (m = 0; m < AUTH_SCRAM_MECHS; m++)
			if (u->scram[m].set && (!u->scram_only ||
			    u->scram[m].salt_len == 0 ||
			    u->scram[m].salt_len > AUTH_SCRAM_SALT_MAX ||
			    u->scram[m].iterations < AUTH_SCRAM_ITER_MIN ||
			    u->scram[m].iterations > AUTH_SCRAM_ITER_MAX))
				abort();
		for (j = 0; j < u->ngrants; j++) {
			if (u->grants[j].prefix_len > TOPIC_NAME_MAX ||
			    strlen(u->grants[j].prefix) != u->grants[j].prefix_len)
				abort();
			/* A grant covers the topic named by its own prefix. */
			if (u->grants[j].prefix_len > 0 && !auth_user_may(u,
			    u->grants[j].perm, u->grants[j].prefix,
			    u->grants[j].prefix_len))
				abort();
		}
	}
	auth_table_free(&t);
	return 0;
}
