/*
 * The metrics child: a supervised process of its own (role "metrics",
 * the slot after the writer, only when metrics_listen is set) that serves
 * the broker's figures in the Prometheus text format over HTTP, with
 * libmicrohttpd, on a socket the master bound before forking.  It only
 * reads the shared region (shm/stats.h), so whatever happens to it can
 * neither stop the data path nor the master.
 *
 *	GET /metrics	the figures (text/plain; version=0.0.4)
 *	GET /		a one-line pointer to /metrics
 */
#ifndef FLUME_MASTER_METRICS_H
#define FLUME_MASTER_METRICS_H

#include <stddef.h>

#include "common/broker.h"
#include "master/config.h"
#include "proto/msg.h"
#include "proto/wire.h"

/*
 * Master, before fork: bind and listen on conf->metrics_listen
 * (non-blocking, SO_REUSEADDR); "host:port" of the bound address in
 * bound.  The socket, or -1 with errno set.
 */
int	metrics_listen_socket(const struct config *conf, char *bound, size_t boundlen);

/* The metrics child (role table, master/roles.c); exits. */
__attribute__((noreturn)) void metrics_main(struct broker *b);

/* Append printf output, a line of up to 1023 bytes, to wb (the console too). */
void	metrics_printf(struct wbuf *wb, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Render a snapshot in the Prometheus text format into out (appended). */
void	metrics_render(const struct stats_resp *st, struct wbuf *out);

#endif
