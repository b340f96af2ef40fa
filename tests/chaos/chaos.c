/*
 * flume-chaos: prove under fire that nothing acknowledged is lost and
 * nothing is stored twice.
 *
 *	flume-chaos [-b bindir] [-n messages] [-p producers] [-P partitions]
 *	    [-g consumers] [-k min-max] [-W n] [-mM] [-r rate] [-d seconds]
 *	    [-s seed] [-K] [-v]
 *
 * Starts the real daemon (bindir/flume-master, in its own process group,
 * on a free loopback port, in a temporary directory).  Producer threads
 * (libflume, idempotent, acks=1) send messages numbered 0..n-1, each
 * number exactly once, over the partitions of topic "chaos"; a consumer
 * group of -g members reads them.  Meanwhile the main thread kills a
 * random worker every min-max ms (-k, default 200-500; only processes
 * that have run for 2.5 s, so the master never takes a kill for a crash
 * loop and delays the respawn), the writer every
 * -W-th kill (default 8), and, with -M (the default; -m turns it off),
 * the master once when a third of the messages are acknowledged, then
 * restarts it on the same directory.  Producers send at most -r messages
 * a second in all (default 40000, 0 unlimited), so the kills land while
 * they work.  At the end every partition is read
 * from the beginning and one line is printed:
 *
 *   chaos: kills=83 acked=3000000 lost=0 duplicated=0 redelivered=1204 max_unavailable_ms=41
 *
 * lost: acknowledged numbers missing from the log; duplicated: numbers
 * stored more than once; redelivered: deliveries to the group beyond the
 * first of each number (at least once, allowed); max_unavailable_ms: the
 * longest a fresh client could not get an answer after a kill.  Exits 1
 * if anything was lost or duplicated (or nothing acknowledged), 2 on a
 * usage or setup error.  Bounded by -d seconds (default 240): producers
 * stop sending new numbers then and the figures cover what was sent.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clients/flume.h"
#include "shm/shm.h"

#define TOPIC		"chaos"
#define GROUP		"chaos-group"
#define MAX_THREADS	32

struct opts {
	char		 bindir[PATH_MAX];
	uint64_t	 n;
	int		 producers, partitions, consumers;
	int		 kill_min, kill_max, writer_every;
	int		 master_kill;
	uint64_t	 rate;		/* messages per second in total; 0 unlimited */
	int		 duration_s;
	uint64_t	 seed;
	int		 keep, verbose;
};

static struct opts	 o;
static char		 dir[PATH_MAX], conf_path[PATH_MAX + 32], log_path[PATH_MAX + 32];
static char		 broker[64];
static pid_t		 master_pid;
static uint8_t		*acked;		/* [n]: 1 once a delivery report said stored */
static _Atomic uint8_t	*seen;		/* [n]: deliveries to the group, saturating */
static _Atomic uint64_t	 nacked, nfailed, nsent, redelivered, nseen;
static _Atomic int	 producers_done, stop_all;
static int64_t		 t_start, t_deadline;

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(int64_t ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static void
say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
	va_list ap;

	if (!o.verbose)
		return;
	fprintf(stderr, "chaos: %6.1fs ", (double)(now_ms() - t_start) / 1000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* xorshift64*, seeded once; only the main thread draws. */
static uint64_t
rnd(void)
{
	o.seed ^= o.seed >> 12;
	o.seed ^= o.seed << 25;
	o.seed ^= o.seed >> 27;
	return o.seed * 0x2545F4914F6CDD1DULL;
}

/* ---- the daemon ---- */

static int
free_port(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, port = -1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* Fork flume-master -c conf in its own process group, output to the log. */
static pid_t
master_spawn(void)
{
	char prog[PATH_MAX + 32];
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/flume-master", o.bindir);
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);

		setpgid(0, 0);
		/* Should flume-chaos itself be killed, the broker goes with it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd != -1) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		execl(prog, "flume-master", "-c", conf_path, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

/* Does a fresh client get an answer (a METADATA round trip)? */
static int
broker_answers(void)
{
	struct flume_client_conf cc;
	struct flume_client *c;
	struct flume_metadata *md;
	int ok;

	flume_client_conf_init(&cc);
	cc.connect_timeout_ms = 500;
	cc.request_timeout_ms = 1000;
	cc.reconnect_attempts = 1;
	if ((c = flume_connect_conf(broker, &cc)) == NULL)
		return 0;
	ok = flume_metadata(c, NULL, 0, 0, &md) == 0;
	if (ok)
		flume_metadata_free(md);
	flume_close(c);
	return ok;
}

/* Wait (<= ms) until the broker answers; the time it took, or -1. */
static int64_t
wait_answers(int64_t since, int64_t ms)
{
	while (!broker_answers()) {
		if (now_ms() - since > ms)
			return -1;
		sleep_ms(5);
	}
	return now_ms() - since;
}

/* Is pid running (not gone, not a zombie)? */
static int
pid_running(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	return p[2] != 'Z' && p[2] != 'X';
}

/*
 * The master's children whose process title names role ("worker",
 * "writer"), from /proc: up to max pids into out; returns the count.
 */
static int
children_of(pid_t parent, const char *role, pid_t *out, int max)
{
	char path[64], buf[512], *p;
	struct dirent *de;
	long pid, ppid;
	DIR *d;
	FILE *f;
	size_t n;
	int k = 0;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while (k < max && (de = readdir(d)) != NULL) {
		if ((pid = strtol(de->d_name, &p, 10)) <= 0 || *p != '\0')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if ((p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 1, " %*c %ld", &ppid) != 1 || ppid != parent ||
		    p[2] == 'Z')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (strstr(buf, role) != NULL)
			out[k++] = (pid_t)pid;
	}
	closedir(d);
	return k;
}

/*
 * Has pid been around for longer than the master's quick-death window?
 * A child killed sooner counts as crashing at start-up and is respawned
 * with a growing delay (flume-master(8)), which is not what this run is
 * about.  Pids are remembered from the first time they are seen.
 */
#define VICTIM_MIN_AGE_MS	2500
static pid_t	 aged_pid[256];
static int64_t	 aged_at[256];

static int
pid_old_enough(pid_t pid)
{
	int i, free_slot = -1, oldest = 0;

	for (i = 0; i < 256; i++) {
		if (aged_pid[i] == pid)
			return now_ms() - aged_at[i] >= VICTIM_MIN_AGE_MS;
		if (aged_pid[i] == 0 && free_slot < 0)
			free_slot = i;
		if (aged_at[i] < aged_at[oldest])
			oldest = i;
	}
	i = free_slot >= 0 ? free_slot : oldest;
	aged_pid[i] = pid;
	aged_at[i] = now_ms();
	return 0;
}

/* Keep only the pids old enough to be killed; returns how many are left. */
static int
victims_aged(pid_t *v, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (pid_old_enough(v[i]))
			v[k++] = v[i];
	return k;
}

static int
write_conf(int port)
{
	FILE *f;

	if ((f = fopen(conf_path, "w")) == NULL)
		return -1;
	fprintf(f, "listen = 127.0.0.1:%d\n", port);
	fprintf(f, "data_dir = %s/data\n", dir);
	fprintf(f, "workers = 4\n");
	fprintf(f, "partitions = %d\n", o.partitions);
	fprintf(f, "max_partitions = %d\n", o.partitions + 16);
	fprintf(f, "ring_size = 4M\n");
	fprintf(f, "log_level = info\n");
	return fclose(f);
}

static void
rmtree(const char *path)
{
	pid_t pid;

	if ((pid = fork()) == 0) {
		execlp("rm", "rm", "-rf", "--", path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* ---- producers ---- */

struct prod_arg {
	int		 id;
};

/*
 * Producer thread: numbers id, id + P, id + 2P, ...  The delivery
 * report carries the producer's message sequence; numbers are mapped
 * back through a table indexed by it.
 */
struct prod_state {
	uint64_t	*num_of;	/* producer seq -> message number */
	uint64_t	 cap;
	uint64_t	 next;		/* the seq flume_produce gives next */
};

static void
on_delivery_map(const struct flume_delivery *d, void *arg)
{
	struct prod_state *st = arg;
	uint64_t k;

	if (d->seq >= st->cap)
		return;
	k = st->num_of[d->seq];
	if (d->error != 0) {
		atomic_fetch_add(&nfailed, 1);
		return;
	}
	if (k < o.n && !acked[k]) {
		acked[k] = 1;
		atomic_fetch_add(&nacked, 1);
	}
}

static struct flume_client *
client_new(void)
{
	struct flume_client_conf cc;

	flume_client_conf_init(&cc);
	cc.client_id = "flume-chaos";
	cc.reconnect_attempts = 100;	/* rides out the master's restart */
	cc.reconnect_backoff_ms = 20;
	cc.request_timeout_ms = 10000;
	return flume_connect_conf(broker, &cc);
}

static void *
producer_main(void *argp)
{
	struct prod_arg *a = argp;
	struct flume_producer_conf pc;
	struct flume_producer *p = NULL;
	struct flume_client *c = NULL;
	struct prod_state *st = NULL;
	uint64_t k, seq, per_ms;
	int64_t t0 = now_ms();
	char v[32];
	int len;

	per_ms = o.rate / (uint64_t)o.producers;
	for (k = (uint64_t)a->id; k < o.n && !atomic_load(&stop_all);
	    k += (uint64_t)o.producers) {
		if (now_ms() > t_deadline)
			break;
		while (p == NULL && !atomic_load(&stop_all) && now_ms() < t_deadline) {
			if ((c = client_new()) == NULL) {
				sleep_ms(50);
				continue;
			}
			st = calloc(1, sizeof(*st));
			st->cap = o.n / (uint64_t)o.producers + 2;
			st->num_of = calloc(st->cap, sizeof(uint64_t));
			flume_producer_conf_init(&pc);
			pc.acks = 1;
			pc.idempotent = 1;
			pc.linger_ms = 2;
			pc.timeout_ms = 10000;
			pc.on_delivery = on_delivery_map;
			pc.on_delivery_arg = st;
			if ((p = flume_producer_new(c, &pc)) == NULL ||
			    flume_producer_id(p) < 0) {
				fprintf(stderr, "chaos: producer %d: %s\n", a->id,
				    flume_errstr(c));
				if (p != NULL)
					flume_producer_free(p);
				p = NULL;
				flume_close(c);
				free(st->num_of);
				free(st);
				st = NULL;
				sleep_ms(50);
			}
		}
		if (p == NULL)
			break;
		if (per_ms > 0)
			while ((now_ms() - t0) * (int64_t)per_ms / 1000 <
			    (int64_t)(k / (uint64_t)o.producers) &&
			    now_ms() < t_deadline)
				sleep_ms(2);
		len = snprintf(v, sizeof(v), "%llu", (unsigned long long)k);
		/* Known before the call: its report may come from inside it. */
		if (st->next < st->cap)
			st->num_of[st->next] = k;
		if (flume_produce(p, TOPIC, FLUME_PARTITION_ANY, NULL, -1, v, len,
		    &seq) == -1) {
			/* Not queued: the producer is gone for good; a new one goes on. */
			say("producer %d: %s; starting a new one", a->id,
			    flume_errstr(c));
			flume_producer_flush(p, 1000);
			flume_producer_free(p);
			flume_close(c);
			free(st->num_of);
			free(st);
			p = NULL;
			st = NULL;
			k -= (uint64_t)o.producers;	/* this number was not sent */
			continue;
		}
		if (seq != st->next)
			fprintf(stderr, "chaos: producer %d: seq %llu, expected "
			    "%llu\n", a->id, (unsigned long long)seq,
			    (unsigned long long)st->next);
		st->next++;
		atomic_fetch_add(&nsent, 1);
	}
	if (p != NULL) {
		if (flume_producer_flush(p, 60000) == -1)
			say("producer %d: flush: %s", a->id, flume_errstr(c));
		flume_producer_free(p);
		flume_close(c);
		free(st->num_of);
		free(st);
	}
	return NULL;
}

/* ---- the consumer group ---- */

static void *
consumer_main(void *argp)
{
	const char *topics[] = { TOPIC };
	struct flume_group_conf gc;
	struct flume_group *g = NULL;
	struct flume_client *c = NULL;
	struct flume_message m;
	unsigned long long k;
	char v[32];
	int rc;

	(void)argp;
	while (!atomic_load(&stop_all)) {
		if (g == NULL) {
			if (c == NULL && (c = client_new()) == NULL) {
				sleep_ms(100);
				continue;
			}
			flume_group_conf_init(&gc);
			gc.session_timeout_ms = 3000;
			gc.auto_commit_ms = 500;
			gc.start_offset = FLUME_OFFSET_BEGINNING;
			gc.max_wait_ms = 200;
			if ((g = flume_group_join(c, GROUP, topics, 1, &gc)) == NULL) {
				say("consumer: join: %s", flume_errstr(c));
				flume_close(c);
				c = NULL;
				sleep_ms(100);
				continue;
			}
		}
		rc = flume_group_poll(g, &m, 200);
		if (rc == -1) {
			say("consumer: poll: %s; joining again", flume_errstr(c));
			flume_group_free(g);
			flume_close(c);
			g = NULL;
			c = NULL;
			continue;
		}
		if (rc == 0)
			continue;
		/* Counted below before the next poll: that is "processed". */
		(void)flume_group_mark_message(g, &m);
		if (m.value_len <= 0 || m.value_len >= (int32_t)sizeof(v))
			continue;
		memcpy(v, m.value, (size_t)m.value_len);
		v[m.value_len] = '\0';
		k = strtoull(v, NULL, 10);
		if (k >= o.n)
			continue;
		if (atomic_fetch_add(&seen[k], 1) > 0)
			atomic_fetch_add(&redelivered, 1);
		else
			atomic_fetch_add(&nseen, 1);
		if (seen[k] == 255)
			atomic_store(&seen[k], 200);	/* saturate, keep counting */
	}
	if (g != NULL)
		flume_group_close(g);
	if (c != NULL)
		flume_close(c);
	return NULL;
}

/* ---- the final read ---- */

/* Count every number stored; -1 when the log could not be read to its end. */
static int
read_all(uint8_t *stored, uint64_t *garbage)
{
	struct flume_consumer_conf kc;
	struct flume_consumer *k;
	struct flume_client *c;
	struct flume_message m;
	int64_t deadline = now_ms() + 300000;
	unsigned long long num;
	char v[32], *end;
	int rc = -1, r;

	*garbage = 0;
	if ((c = client_new()) == NULL)
		return -1;
	flume_consumer_conf_init(&kc);
	kc.max_wait_ms = 100;
	kc.max_bytes = 4 << 20;
	if ((k = flume_consumer_new(c, &kc)) == NULL ||
	    flume_consumer_subscribe(k, TOPIC, FLUME_PARTITION_ANY,
	    FLUME_OFFSET_BEGINNING) == -1)
		goto out;
	while (now_ms() < deadline) {
		r = flume_consumer_poll(k, &m, 500);
		if (r == -1)
			goto out;
		if (r == 0) {
			if (flume_consumer_at_end(k)) {
				rc = 0;
				break;
			}
			continue;
		}
		if (m.value_len <= 0 || m.value_len >= (int32_t)sizeof(v)) {
			(*garbage)++;
			continue;
		}
		memcpy(v, m.value, (size_t)m.value_len);
		v[m.value_len] = '\0';
		num = strtoull(v, &end, 10);
		if (*end != '\0' || num >= o.n) {
			(*garbage)++;
			continue;
		}
		if (stored[num] < 255)
			stored[num]++;
	}
out:
	if (rc == -1)
		fprintf(stderr, "chaos: final read: %s\n", flume_errstr(c));
	if (k != NULL)
		flume_consumer_free(k);
	flume_close(c);
	return rc;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: flume-chaos [-KmMv] [-b bindir] [-n messages] "
	    "[-p producers] [-P partitions]\n"
	    "                   [-g consumers] [-k min-max] [-W n] [-r rate] "
	    "[-d seconds] [-s seed]\n");
	exit(2);
}

static void
opts_parse(int argc, char *argv[])
{
	const char *bin = getenv("FLUME_BIN");
	char self[PATH_MAX];
	int ch;

	o.n = 2500000;
	o.producers = 4;
	o.partitions = 6;
	o.consumers = 3;
	o.kill_min = 200;
	o.kill_max = 500;
	o.writer_every = 8;
	o.master_kill = 1;
	o.duration_s = 240;
	o.rate = 40000;
	o.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (bin != NULL && *bin != '\0')
		snprintf(o.bindir, sizeof(o.bindir), "%s", bin);
	else {
		snprintf(self, sizeof(self), "%s", argv[0]);
		snprintf(o.bindir, sizeof(o.bindir), "%s", dirname(self));
	}
	while ((ch = getopt(argc, argv, "b:d:g:k:KmMn:p:P:r:s:vW:")) != -1) {
		switch (ch) {
		case 'b':
			snprintf(o.bindir, sizeof(o.bindir), "%s", optarg);
			break;
		case 'd':
			o.duration_s = atoi(optarg);
			break;
		case 'g':
			o.consumers = atoi(optarg);
			break;
		case 'k':
			if (sscanf(optarg, "%d-%d", &o.kill_min, &o.kill_max) != 2)
				usage();
			break;
		case 'K':
			o.keep = 1;
			break;
		case 'm':
			o.master_kill = 0;
			break;
		case 'M':
			o.master_kill = 1;
			break;
		case 'n':
			o.n = strtoull(optarg, NULL, 10);
			break;
		case 'p':
			o.producers = atoi(optarg);
			break;
		case 'P':
			o.partitions = atoi(optarg);
			break;
		case 'r':
			o.rate = strtoull(optarg, NULL, 10);
			break;
		case 's':
			o.seed = strtoull(optarg, NULL, 10);
			break;
		case 'v':
			o.verbose = 1;
			break;
		case 'W':
			o.writer_every = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || o.n < 1 || o.n > 100000000 || o.producers < 1 ||
	    o.producers > MAX_THREADS || o.partitions < 1 || o.partitions > 1024 ||
	    o.consumers < 0 || o.consumers > MAX_THREADS || o.kill_min < 1 ||
	    o.kill_max < o.kill_min || o.duration_s < 1 || o.writer_every < 0)
		usage();
	if (o.seed == 0)
		o.seed = 1;
}

int
main(int argc, char *argv[])
{
	pthread_t prod[MAX_THREADS], cons[MAX_THREADS];
	struct prod_arg pa[MAX_THREADS];
	struct flume_client *c;
	const char *tmp;
	uint8_t *stored;
	uint64_t i, lost = 0, dup = 0, garbage = 0;
	int64_t max_unavail = 0, t, next_kill;
	pid_t victims[16], pid;
	int port, kills = 0, master_killed = 0, nv, j, status = 2, joined;

	opts_parse(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	t_start = now_ms();
	t_deadline = t_start + (int64_t)o.duration_s * 1000;
	tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/flume-chaos-XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "chaos: mkdtemp: %s\n", strerror(errno));
		return 2;
	}
	snprintf(conf_path, sizeof(conf_path), "%s/flume.conf", dir);
	snprintf(log_path, sizeof(log_path), "%s/master.log", dir);
	acked = calloc(o.n, 1);
	seen = calloc(o.n, 1);
	stored = calloc(o.n, 1);
	if (acked == NULL || seen == NULL || stored == NULL ||
	    (port = free_port()) <= 0 || write_conf(port) == -1) {
		fprintf(stderr, "chaos: setup failed\n");
		goto cleanup;
	}
	snprintf(broker, sizeof(broker), "127.0.0.1:%d", port);
	if ((master_pid = master_spawn()) <= 0 || wait_answers(now_ms(), 10000) < 0) {
		fprintf(stderr, "chaos: the broker did not start (see %s)\n", log_path);
		goto cleanup;
	}
	if ((c = client_new()) == NULL ||
	    flume_create_topic(c, TOPIC, o.partitions, NULL) == -1) {
		fprintf(stderr, "chaos: create topic: %s\n", flume_errstr(c));
		goto cleanup;
	}
	flume_close(c);
	say("broker on %s in %s; %llu messages, %d producers, %d partitions, "
	    "%d consumers", broker, dir, (unsigned long long)o.n, o.producers,
	    o.partitions, o.consumers);

	for (j = 0; j < o.producers; j++) {
		pa[j].id = j;
		pthread_create(&prod[j], NULL, producer_main, &pa[j]);
	}
	for (j = 0; j < o.consumers; j++)
		pthread_create(&cons[j], NULL, consumer_main, NULL);

	/* The killer: until every producer is done (or time is up). */
	next_kill = now_ms() + o.kill_min + (int64_t)(rnd() %
	    (uint64_t)(o.kill_max - o.kill_min + 1));
	for (;;) {
		if (atomic_load(&nacked) + atomic_load(&nfailed) >= o.n ||
		    now_ms() > t_deadline + 60000)
			break;
		/* Producers may have stopped early (deadline): they tell by exiting. */
		joined = 1;
		for (j = 0; j < o.producers; j++)
			if (pthread_tryjoin_np(prod[j], NULL) == EBUSY)
				joined = 0;
			else
				prod[j] = pthread_self();
		if (joined)
			break;
		if (now_ms() < next_kill) {
			sleep_ms(10);
			continue;
		}
		next_kill = now_ms() + o.kill_min + (int64_t)(rnd() %
		    (uint64_t)(o.kill_max - o.kill_min + 1));
		if (now_ms() > t_deadline)
			continue;
		if (o.master_kill && !master_killed &&
		    atomic_load(&nacked) >= o.n / 3) {
			master_killed = 1;
			say("killing the master (pid %ld)", (long)master_pid);
			nv = children_of(master_pid, "flume-master:", victims, 16);
			kill(master_pid, SIGKILL);
			waitpid(master_pid, NULL, 0);
			t = now_ms();
			for (j = 0; j < nv; j++)
				while (pid_running(victims[j]) && now_ms() - t < 10000)
					sleep_ms(5);
			if ((master_pid = master_spawn()) <= 0)
				break;
			if ((t = wait_answers(t, 20000)) < 0) {
				fprintf(stderr, "chaos: the broker did not come back\n");
				break;
			}
			if (t > max_unavail)
				max_unavail = t;
			kills++;
			say("master back after %lld ms", (long long)t);
			continue;
		}
		if (o.writer_every > 0 && (kills + 1) % o.writer_every == 0)
			nv = children_of(master_pid, "writer", victims, 16);
		else
			nv = children_of(master_pid, "worker", victims, 16);
		if ((nv = victims_aged(victims, nv)) == 0) {
			next_kill = now_ms() + 20;	/* try again soon */
			continue;
		}
		pid = victims[rnd() % (uint64_t)nv];
		if (kill(pid, SIGKILL) == 0) {
			kills++;
			t = now_ms();
			if ((t = wait_answers(t, 20000)) > max_unavail)
				max_unavail = t;
			if (o.verbose && kills % 10 == 0)
				say("%d kills, %llu acked", kills,
				    (unsigned long long)atomic_load(&nacked));
		}
	}
	for (j = 0; j < o.producers; j++)
		if (!pthread_equal(prod[j], pthread_self()))
			pthread_join(prod[j], NULL);
	atomic_store(&producers_done, 1);
	say("producers done: %llu acked, %llu failed; %d kills",
	    (unsigned long long)atomic_load(&nacked),
	    (unsigned long long)atomic_load(&nfailed), kills);
	/* The group catches up with everything acknowledged (bounded), then stops. */
	t = now_ms();
	while (o.consumers > 0 && atomic_load(&nseen) < atomic_load(&nacked) &&
	    now_ms() - t < 60000)
		sleep_ms(20);
	atomic_store(&stop_all, 1);
	for (j = 0; j < o.consumers; j++)
		pthread_join(cons[j], NULL);
	say("the group read %llu numbers, %llu again",
	    (unsigned long long)atomic_load(&nseen),
	    (unsigned long long)atomic_load(&redelivered));

	if (read_all(stored, &garbage) == -1) {
		fprintf(stderr, "chaos: could not read the log back\n");
		status = 1;
	} else
		status = 0;
	for (i = 0; i < o.n; i++) {
		if (acked[i] && stored[i] == 0)
			lost++;
		if (stored[i] > 1)
			dup++;
	}
	if (o.consumers > 0) {
		uint64_t unread = 0;

		for (i = 0; i < o.n; i++)
			if (stored[i] > 0 && atomic_load(&seen[i]) == 0)
				unread++;
		if (unread > 0)
			fprintf(stderr, "chaos: the group did not read %llu "
			    "stored messages\n", (unsigned long long)unread);
	}
	printf("chaos: kills=%d acked=%llu lost=%llu duplicated=%llu "
	    "redelivered=%llu max_unavailable_ms=%lld\n", kills,
	    (unsigned long long)atomic_load(&nacked), (unsigned long long)lost,
	    (unsigned long long)dup, (unsigned long long)atomic_load(&redelivered),
	    (long long)max_unavail);
	fflush(stdout);
	if (garbage > 0)
		fprintf(stderr, "chaos: %llu records that are not ours\n",
		    (unsigned long long)garbage);
	if (lost > 0 || dup > 0 || garbage > 0 || atomic_load(&nacked) == 0)
		status = 1;

cleanup:
	if (master_pid > 0) {
		kill(master_pid, SIGTERM);
		t = now_ms();
		while (waitpid(master_pid, NULL, WNOHANG) == 0 && now_ms() - t < 30000)
			sleep_ms(20);
		kill(-master_pid, SIGKILL);
		waitpid(master_pid, NULL, WNOHANG);
	}
	{
		/* A killed master leaves its region; the next start would drain it. */
		char name[SHM_NAME_MAX], data[PATH_MAX + 8];

		snprintf(data, sizeof(data), "%s/data", dir);
		if (shm_name_for(data, name, sizeof(name)) == 0)
			shm_unlink_name(name);
	}
	if (status != 0 || o.keep)
		fprintf(stderr, "chaos: the daemon's directory is kept: %s\n", dir);
	else
		rmtree(dir);
	free(acked);
	free((void *)seen);
	free(stored);
	return status;
}
