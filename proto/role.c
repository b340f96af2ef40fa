/* Role names; see role.h. */
#include "proto/role.h"

const char *
role_name(int role)
{
	static const char *const names[ROLE_COUNT] = {
		[ROLE_WORKER] = "worker",
		[ROLE_WRITER] = "writer",
		[ROLE_METRICS] = "metrics",
		[ROLE_CLEANER] = "cleaner",
	};

	return role >= 0 && role < ROLE_COUNT ? names[role] : "unknown";
}
