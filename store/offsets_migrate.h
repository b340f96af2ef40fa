/*
 * Moving committed offsets out of <data_dir>/__consumer_offsets/, where
 * brokers before this layout kept them, into OFFSETS_DIR (store/
 * offsets.h).  The old place was a valid topic name: a Kafka client's
 * Metadata could make it a topic and its DeleteTopics then removed every
 * group's offsets with it.
 */
#ifndef FLUME_STORE_OFFSETS_MIGRATE_H
#define FLUME_STORE_OFFSETS_MIGRATE_H

#define OFFSETS_OLD_DIR	"__consumer_offsets"

struct offsets_migration {
	int	moved;		/* group files renamed into OFFSETS_DIR */
	int	kept;		/* left: OFFSETS_DIR has that group already */
	int	old_left;	/* the old directory is still there */
};

/*
 * Master start-up, before anything is forked.  Every <group>.offsets in
 * the old directory whose group has no file in OFFSETS_DIR is renamed
 * there; then OFFSETS_DIR and the old directory are synced, in that
 * order, so a power cut leaves each file in one place or the other,
 * never in neither.  An old directory left with nothing but temp files
 * of an interrupted save is removed (and data_dir synced).  Run again
 * after a crash, it finishes the move.  0, or -1 with errno (what was
 * moved before the failure stays moved).
 */
int	offsets_migrate(const char *data_dir, struct offsets_migration *m);

#endif
