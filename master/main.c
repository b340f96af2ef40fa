/*
 * flume-master: read the configuration, lock the data directory, recover,
 * create the shared region, the listening socket and the eventfds, then
 * fork the workers and the writer and supervise them (supervisor.c).
 *
 *	flume-master [-dnv] [-c file]
 *
 * Until logging is set up, errors go to stderr as "flume-master: ..." (or,
 * for the configuration, "file:line: message") and exit 1.
 */
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bsd/libutil.h>
#include <bsd/stdlib.h>
#include <bsd/string.h>
#include <bsd/unistd.h>

#include "common/broker.h"
#include "master/config.h"
#include "master/fault.h"
#include "master/live.h"
#include "common/log.h"
#include "common/tlsctx.h"
#include "master/metrics.h"
#include "master/recovery.h"
#include "master/supervisor.h"
#include "proto/version.h"
#include "store/file.h"
#include "common/authfile.h"

#define DEFAULT_CONFIG	"flume.conf"
/* How long to wait for the lock held by a dead master's dying children. */
#define LOCK_WAIT_MS	5000
/* ... and how long for one whose master looks alive (it may be dying). */
#define LOCK_ALIVE_MS	300

static void __attribute__((noreturn))
usage(FILE *f, int status)
{
	fprintf(f, "usage: flume-master [-dnv] [-c file]\n"
	    "       flume-master -h | --help | -V | --version\n");
	exit(status);
}

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "flume-master: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void
sleep_ms(long ms)
{
	struct timespec	ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Is pid a process that is not (yet) a zombie? */
static int
pid_running(pid_t pid)
{
	char	 path[64], buf[512], *p;
	FILE	*f;
	size_t	 n;

	if (kill(pid, 0) == -1 && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return errno != ENOENT;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 1;
	return p[2] != 'Z' && p[2] != 'X';
}

/*
 * Take the data directory's lock.  The lock is inherited by the children,
 * so it is held until the last process of this broker is gone; when the
 * recorded master is dead but its children still hold the lock (they are
 * being killed by PR_SET_PDEATHSIG), wait a moment for them.
 */
static struct pidfh *
lock_data_dir(const char *data_dir)
{
	struct pidfh	*pfh;
	char		 path[PATH_MAX];
	pid_t		 other;
	int		 waited = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/flume.pid", data_dir) >=
	    sizeof(path))
		die("data directory %s: path too long", data_dir);
	for (;;) {
		other = -1;
		pfh = pidfile_open(path, 0600, &other);
		if (pfh != NULL)
			return pfh;
		if (errno != EEXIST)
			die("cannot lock %s: %s", path, strerror(errno));
		/* A live holder is another broker: give it up after a moment. */
		if (other > 0 && pid_running(other) && waited >= LOCK_ALIVE_MS)
			break;
		if (waited >= LOCK_WAIT_MS)
			break;
		sleep_ms(50);
		waited += 50;
	}
	if (other > 0)
		die("data directory %s is in use by pid %ld", data_dir,
		    (long)other);
	die("data directory %s is in use by another process", data_dir);
}

static void __attribute__((noreturn))
listen_fail(const char *addr, int e)
{
	if (e == EADDRINUSE)
		die("cannot listen on %s: address already in use "
		    "(another broker or program is bound to it)", addr);
	die("cannot listen on %s: %s", addr, strerror(e));
}

/* "127.0.0.1:9192" or "[::1]:9192" of a bound socket. */
static void
sockaddr_text(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	char	host[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(s4->sin_port));
	}
}

/*
 * The socket every worker accepts on: non-blocking (workers use epoll),
 * SO_REUSEADDR (a restart must not wait for TIME_WAIT).  Only bound here,
 * so a busy address is reported on the terminal before anything else
 * happens; listen_start() starts accepting once recovery is done, so a
 * client that can connect finds the broker's state recovered.
 */
static int
listen_bind(const char *host, const char *port, const char *addr,
    char *bound, size_t boundlen)
{
	struct addrinfo		 hints, *res, *ai;
	struct sockaddr_storage	 ss;
	socklen_t		 sl;
	int			 fd = -1, on = 1, rc, saved = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		die("cannot resolve listen address %s: %s", addr,
		    gai_strerror(rc));
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK,
		    ai->ai_protocol);
		if (fd == -1) {
			saved = errno;
			continue;
		}
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
		    sizeof(on)) == 0 &&
		    bind(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1)
		listen_fail(addr, saved);
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == -1)
		die("getsockname: %s", strerror(errno));
	sockaddr_text(&ss, bound, boundlen);
	return fd;
}

int
main(int argc, char *argv[], char *envp[])
{
	struct config	 conf;
	struct broker	 b;
	struct pidfh	*pfh;
	char		 err[PATH_MAX + 512], bound[INET6_ADDRSTRLEN + 16];
	char		 warn[PATH_MAX + 128] = "";
	char		 real[PATH_MAX], shmname[SHM_NAME_MAX];
	char		 mbound[INET6_ADDRSTRLEN + 16];
	char		 kbound[INET6_ADDRSTRLEN + 16];
	char		 tbound[INET6_ADDRSTRLEN + 16];
	char		 ktbound[INET6_ADDRSTRLEN + 16];
	const char	*path = DEFAULT_CONFIG;
	int		 ch, daemonize = 0, check = 0, verbose = 0, i;
	int		 status, unlink_ok = 0;

	setproctitle_init(argc, argv, envp);
	while ((ch = getopt_long(argc, argv, "c:dhnvV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'd':
			daemonize = 1;
			break;
		case 'n':
			check = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout, 0);
		case 'V':
			printf("flume-master %s\n", FLUME_VERSION);
			exit(0);
		default:
			usage(stderr, 1);
		}
	}
	if (optind != argc)
		usage(stderr, 1);

	if (config_load(&conf, path, err, sizeof(err)) == -1) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	/* Read before forking: every worker inherits the table. */
	if (conf.auth_file[0] != '\0' && auth_load(conf.auth_file, err,
	    sizeof(err), warn, sizeof(warn)) == -1) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	if (warn[0] != '\0')
		fprintf(stderr, "flume-master: warning: %s\n", warn);
	/* A bad certificate or key is reported here (and by -n). */
	if (tlsctx_wanted(&conf)) {
		SSL_CTX *ctx;

		if ((ctx = tlsctx_new(&conf, err, sizeof(err))) == NULL) {
			fprintf(stderr, "%s\n", err);
			exit(1);
		}
		SSL_CTX_free(ctx);
	}
	if (check) {
		fprintf(stderr, "%s: configuration OK\n", path);
		auth_unload();
		config_free(&conf);
		exit(0);
	}
	/* SIGHUP re-reads the file: by an absolute path, since daemon(3) cds to /. */
	if (realpath(path, real) != NULL)
		strlcpy(conf.path, real, sizeof(conf.path));
	if (live_init(&conf) == -1)
		die("out of memory");
	if (verbose)
		conf.log_level = LOG_LVL_DEBUG;

	signal(SIGPIPE, SIG_IGN);
	if (store_mkdir_p(conf.data_dir, 0700) == -1)
		die("cannot create data directory %s: %s", conf.data_dir,
		    strerror(errno));
	/* Absolute from here on: daemon(3) changes to /. */
	if (realpath(conf.data_dir, real) == NULL)
		die("data directory %s: %s", conf.data_dir, strerror(errno));
	strlcpy(conf.data_dir, real, sizeof(conf.data_dir));
	pfh = lock_data_dir(conf.data_dir);

	/* listen = off: TLS only, or Kafka only. */
	b.listen_fd = -1;
	strlcpy(bound, "off", sizeof(bound));
	if (conf.listen[0] != '\0')
		b.listen_fd = listen_bind(conf.listen_host, conf.listen_port,
		    conf.listen, bound, sizeof(bound));
	b.tls_fd = b.kafka_tls_fd = -1;
	if (conf.listen_tls[0] != '\0')
		b.tls_fd = listen_bind(conf.listen_tls_host,
		    conf.listen_tls_port, conf.listen_tls, tbound,
		    sizeof(tbound));
	if (conf.kafka_listen_tls[0] != '\0')
		b.kafka_tls_fd = listen_bind(conf.kafka_tls_host,
		    conf.kafka_tls_port, conf.kafka_listen_tls, ktbound,
		    sizeof(ktbound));
	/* The Kafka listener: bound before fork too, every worker accepts. */
	b.kafka_fd = -1;
	if (conf.kafka_listen[0] != '\0')
		b.kafka_fd = listen_bind(conf.kafka_host, conf.kafka_port,
		    conf.kafka_listen, kbound, sizeof(kbound));
	/* Bound here too, so a busy metrics port is reported right away. */
	b.has_metrics = conf.metrics_listen[0] != '\0';
	b.metrics_fd = -1;
	if (b.has_metrics && (b.metrics_fd = metrics_listen_socket(&conf,
	    mbound, sizeof(mbound))) == -1)
		die("cannot listen for metrics on %s: %s", conf.metrics_listen,
		    strerror(errno));

	if (daemonize && daemon(0, 0) == -1)
		die("daemon: %s", strerror(errno));
	log_init(daemonize, conf.log_level, "master");
	if (pidfile_write(pfh) == -1)
		log_warn("cannot write the pid file");
	setproctitle("master");
	log_info("starting: config %s, data directory %s, %d worker%s",
	    conf.path, conf.data_dir, conf.workers, conf.workers == 1 ? "" : "s");
	if (b.has_metrics)
		log_info("metrics on %s://%s/metrics", conf.metrics_tls ?
		    "https" : "http", mbound);
	if (b.kafka_fd != -1)
		log_info("Kafka listener on %s, advertised as %s:%d", kbound,
		    conf.kafka_adv_host, (int)conf.kafka_adv_port);
	if (b.tls_fd != -1)
		log_info("TLS listener on %s", tbound);
	if (b.kafka_tls_fd != -1)
		log_info("Kafka TLS listener on %s, advertised as %s:%d",
		    ktbound, conf.kafka_tls_adv_host,
		    (int)conf.kafka_tls_adv_port);

	fault_trace_install("master");	/* tests only: FLUME_TEST_FSYNC_LOG */
	if (recovery_run(&conf, &b.shm) == -1) {
		pidfile_remove(pfh);
		fatalx("startup recovery failed");
	}
	strlcpy(shmname, b.shm.name, sizeof(shmname));
	/* Replace what an earlier master may have left in the region. */
	auth_publish(&b.shm);
	if ((b.listen_fd != -1 && listen(b.listen_fd, SOMAXCONN) == -1) ||
	    (b.kafka_fd != -1 && listen(b.kafka_fd, SOMAXCONN) == -1) ||
	    (b.tls_fd != -1 && listen(b.tls_fd, SOMAXCONN) == -1) ||
	    (b.kafka_tls_fd != -1 && listen(b.kafka_tls_fd, SOMAXCONN) == -1)) {
		log_warn("cannot listen");
		shm_detach(&b.shm);
		shm_unlink_name(shmname);
		pidfile_remove(pfh);
		exit(1);
	}

	b.conf = &conf;
	b.nslots = conf.workers + 2 + (b.has_metrics ? 1 : 0);
	b.slot = -1;
	b.eventfds = calloc((size_t)b.nslots, sizeof(int));
	if (b.eventfds == NULL)
		fatal("calloc");
	for (i = 0; i < b.nslots; i++)
		if ((b.eventfds[i] = eventfd(0, EFD_NONBLOCK)) == -1)
			fatal("eventfd");

	status = supervisor_run(&b, bound, &unlink_ok);

	for (i = 0; i < b.nslots; i++)
		close(b.eventfds[i]);
	free(b.eventfds);
	if (b.listen_fd != -1)
		close(b.listen_fd);
	if (b.kafka_fd != -1)
		close(b.kafka_fd);
	if (b.tls_fd != -1)
		close(b.tls_fd);
	if (b.kafka_tls_fd != -1)
		close(b.kafka_tls_fd);
	if (b.has_metrics)
		close(b.metrics_fd);
	live_fini();
	shm_detach(&b.shm);
	if (unlink_ok)
		shm_unlink_name(shmname);
	else
		log_warnx("the rings could not be drained: shared memory "
		    "%s is kept for the next start", shmname);
	pidfile_remove(pfh);
	auth_unload();
	config_free(&conf);
	if (status == 0)
		log_info("shutdown complete");
	else
		log_warnx("stopped after an error");
	return status;
}
