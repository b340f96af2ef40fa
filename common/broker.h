/*
 * What every child process of flume-master starts with: the configuration,
 * the shared region (mapped before fork), the listening socket and the
 * eventfds, one per child slot, created by the master before fork so a
 * respawned child inherits the same ones.  Slots 0..workers-1 are
 * workers; slot `workers` is the writer, `workers + 1` the cleaner; with
 * metrics_listen set, slot `workers + 2` is the metrics child
 * (master/metrics.c).
 */
#ifndef FLUME_COMMON_BROKER_H
#define FLUME_COMMON_BROKER_H

#include "common/config.h"
#include "shm/shm.h"

struct broker {
	struct config		*conf;		/* this process's own: reloads change it */
	struct shm		 shm;
	int			 listen_fd;	/* native plaintext, or -1 (listen off) */
	int			 kafka_fd;	/* the Kafka listener, or -1 (kafka_listen off) */
	int			 tls_fd;	/* native TLS, or -1 (listen_tls off) */
	int			 kafka_tls_fd;	/* Kafka TLS, or -1 (kafka_listen_tls off) */
	int			*eventfds;	/* [child_slots]; eventfds[slot] wakes that child */
	int			 nslots;
	int			 slot;		/* this child's slot */
	int			 has_metrics;	/* slot nslots - 1 is the metrics child */
	int			 metrics_fd;	/* its listening socket, if has_metrics */
};

/* Wake child `slot` (eventfd write of 1); safe from any process. */
void	broker_wake(const struct broker *b, int slot);
int	broker_writer_slot(const struct broker *b);
/* The cleaner's slot, right after the writer's (master/cleaner.c). */
int	broker_cleaner_slot(const struct broker *b);
/* The metrics child's slot (after the writer's), or -1 without one. */
int	broker_metrics_slot(const struct broker *b);

/* Exit status that tells the master not to respawn (bad configuration). */
#define EXIT_NO_RESPAWN	2

#endif
