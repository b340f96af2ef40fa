/*
 * Kafka requests made with the declarative codec for the integration
 * suites: send (m, v) and decode its answer exactly.  Answers and their
 * arrays are held until kcall_release().
 */
#ifndef FLUME_TESTS_KCALL_H
#define FLUME_TESTS_KCALL_H

#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/kafka/kdesc.h"

/* Send q as (m, v) with correlation id corr, decode the answer: 0 or -1. */
int	kcall(int fd, const struct kmsg *m, int16_t v, int32_t corr,
	    const void *q, void *resp);
/*
 * Send a captured request (tests/fixtures/kdesc/NAME: its own version,
 * into *v, and correlation id) and decode the answer: 0 or -1.
 */
int	kcall_replay(int fd, const char *name, const struct kmsg *m,
	    int16_t *v, void *resp);
void	kcall_release(void);

#endif
