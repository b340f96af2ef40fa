/*
 * The broker's clocks, for every role.  Times are milliseconds (or
 * microseconds where a name says so); CLOCK_MONOTONIC for timeouts and
 * durations, CLOCK_REALTIME for what a user reads (record timestamps,
 * start times, retention by age).
 */
#ifndef FLUME_COMMON_CLOCK_H
#define FLUME_COMMON_CLOCK_H

#include <stdint.h>

int64_t	 clock_mono_ms(void);
uint64_t clock_mono_us(void);
int64_t	 clock_real_ms(void);

#endif
