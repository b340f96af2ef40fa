/*
 * Startup recovery, run by the master before anything is forked.
 */
#ifndef FLUME_MASTER_RECOVERY_H
#define FLUME_MASTER_RECOVERY_H

#include "master/config.h"
#include "shm/shm.h"

/*
 * Bring the broker's state back from the previous run into a fresh shared
 * region:
 *  0. committed offsets in the old layout's __consumer_offsets/ move to
 *     their own directory (store/offsets_migrate.h);
 *  1. an old region of the same name that still carries this layout is
 *     drained into the logs (writer_drain_region) and dropped; one with
 *     another layout is left unused (logged);
 *  2. a fresh region sized from conf replaces it (*shm);
 *  3. every topic on disk is recovered (plog_open truncates torn tails and
 *     rebuilds indexes) and entered with its offsets; topics named in
 *     [topic] sections that do not exist yet are created.
 * Logs what it did.  0, or -1 with the reason logged (shm is then not
 * mapped).
 */
int	recovery_run(const struct config *conf, struct shm *shm);

#endif
