/*
 * The cleaner (issue 28): a supervised child compacting the closed
 * segments of every topic whose cleanup.policy has compact, internal
 * ones included (store/clean.h does the work); and the lock the writer
 * shares with it, per partition (shm/shm.h clean_lock).
 */
#ifndef FLUME_MASTER_CLEANER_H
#define FLUME_MASTER_CLEANER_H

#include "common/broker.h"

__attribute__((noreturn)) void cleaner_main(struct broker *b);

/*
 * Take partition slot's clean_lock; dir is the partition's directory,
 * where a swap its dead holder left is finished first.  0 or -1.
 */
int	cleaner_lock(struct shm *s, uint32_t slot, const char *dir);
void	cleaner_unlock(struct shm *s, uint32_t slot);

#endif
