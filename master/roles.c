/* The role table; see roles.h. */
#include "master/cleaner.h"
#include "master/metrics.h"
#include "master/roles.h"
#include "master/writer.h"
#include "worker/main.h"

const struct role roles[ROLE_COUNT] = {
	[ROLE_WORKER] = { ROLE_WORKER, worker_main },
	[ROLE_WRITER] = { ROLE_WRITER, writer_main },
	[ROLE_METRICS] = { ROLE_METRICS, metrics_main },
	[ROLE_CLEANER] = { ROLE_CLEANER, cleaner_main },
};
