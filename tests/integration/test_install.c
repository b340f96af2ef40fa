/*
 * `make install` into a temporary DESTDIR: the files land where the
 * README says, a program builds against the installed library with
 * `pkg-config --cflags --libs libflume` alone and runs against a live
 * broker, and `make uninstall` removes every file again.
 *
 * The build directory comes from $FLUME_BUILD / $FLUME_SANITIZE (set by
 * `make check`), so install reuses the objects just tested.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/integration/support.h"

static struct flumed d;
static char *tmp;

static const char prog[] =
    "#include <flume.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "int main(int argc, char **argv) {\n"
    "	struct flume_client *c;\n"
    "	int32_t n = 0;\n"
    "	if (flume_partition_for_key(\"key\", 3, 4) != (int32_t)(flume_fnv1a32(\"key\", 3) % 4))\n"
    "		return 3;\n"
    "	if (argc < 2 || (c = flume_connect(argv[1])) == NULL)\n"
    "		return 4;\n"
    "	if (flume_create_topic(c, \"installed\", 3, &n) == -1 &&\n"
    "	    flume_broker_error(c) != 9)\n"
    "		return 5;\n"
    "	if (n == 0)\n"
    "		n = 3;	/* it existed: a second run */\n"
    "	printf(\"partition %d partitions %d\\n\", (int)flume_partition_for_key(\"key\", 3, 4), (int)n);\n"
    "	flume_close(c);\n"
    "	return 0;\n"
    "}\n";

static int
setup(void)
{
	if ((tmp = test_mkdtemp("install")) == NULL)
		return -1;
	if (flumed_start(&d, NULL) == -1) {
		flumed_cleanup(&d);
		return -1;
	}
	return 0;
}

static int
teardown(void)
{
	flumed_cleanup(&d);
	if (tmp != NULL && getenv("FLUME_KEEP_TMP") == NULL)
		test_rmtree(tmp);
	free(tmp);
	return 0;
}

/* Run a shell command (bounded by timeout(1)); its exit status or -1. */
static int
sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int
exists(const char *rel)
{
	char path[2048];
	struct stat st;

	snprintf(path, sizeof(path), "%s/dest/usr/local/%s", tmp, rel);
	return lstat(path, &st) == 0;
}

static void
test_install_build_run(void)
{
	const char *b = getenv("FLUME_BUILD") ? getenv("FLUME_BUILD") : "build";
	const char *san = getenv("FLUME_SANITIZE") ? getenv("FLUME_SANITIZE") : "0";
	const char *cflags = strcmp(san, "1") == 0 ?
	    "-fsanitize=address,undefined" : "";
	char path[2048], out[256];
	FILE *f;
	int i;
	static const char *const files[] = {
		"bin/flume-master", "bin/flume-admin", "bin/flume-produce",
		"bin/flume-consume", "bin/flume-mirror", "include/flume.h", "lib/libflume.a",
		"lib/libflume.so", "lib/libflume.so.1", "lib/libflume.so.1.0.0",
		"lib/pkgconfig/libflume.pc",
		"lib/systemd/system/flume-master.service",
		"lib/sysusers.d/flume.conf", "etc/flume/flume.conf",
		"share/doc/flume/flume.conf.example",
		"share/man/man8/flume-master.8", "share/man/man5/flume.conf.5",
		"share/man/man1/flume-admin.1", "share/man/man7/flume-protocol.7",
		"share/man/man1/flume-mirror.1",
	};

	CU_ASSERT_EQUAL_FATAL(sh("timeout 300 make -s --no-print-directory install "
	    "PREFIX=/usr/local DESTDIR=%s/dest B=%s BIN=%s SANITIZE=%s "
	    ">%s/make.log 2>&1", tmp, b, support_bindir(), san, tmp), 0);
	for (i = 0; i < (int)(sizeof(files) / sizeof(files[0])); i++) {
		if (!exists(files[i]))
			fprintf(stderr, "not installed: %s\n", files[i]);
		CU_ASSERT(exists(files[i]));
	}
	/* The unit runs the installed program with the installed config. */
	CU_ASSERT_EQUAL(sh("grep -qx 'ExecStart=/usr/local/bin/flume-master -c "
	    "/usr/local/etc/flume/flume.conf' %s/dest/usr/local/lib/systemd/"
	    "system/flume-master.service", tmp), 0);
	/* flume.h stands alone: no internal header. */
	CU_ASSERT_EQUAL(sh("! grep -q '#include \"' %s/dest/usr/local/include/flume.h",
	    tmp), 0);

	snprintf(path, sizeof(path), "%s/prog.c", tmp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "w"));
	fputs(prog, f);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	/* Shared library, found by pkg-config in the staging tree. */
	CU_ASSERT_EQUAL_FATAL(sh("cd %s && export PKG_CONFIG_PATH=%s/dest/usr/local/lib/pkgconfig && "
	    "cc -std=c11 -Wall -Werror %s -o prog prog.c $(pkg-config "
	    "--define-variable=prefix=%s/dest/usr/local --cflags --libs libflume) "
	    ">cc.log 2>&1", tmp, tmp, cflags, tmp), 0);
	CU_ASSERT_EQUAL_FATAL(sh("cd %s && LD_LIBRARY_PATH=%s/dest/usr/local/lib "
	    "timeout 30 ./prog %s >prog.out 2>&1", tmp, tmp, d.broker), 0);
	snprintf(path, sizeof(path), "%s/prog.out", tmp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "r"));
	CU_ASSERT_PTR_NOT_NULL(fgets(out, sizeof(out), f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(out, "partition 0 partitions 3\n");
	/* It used the installed libflume.so.1. */
	CU_ASSERT_EQUAL(sh("cd %s && LD_LIBRARY_PATH=%s/dest/usr/local/lib ldd ./prog "
	    "| grep -q '%s/dest/usr/local/lib/libflume.so.1'", tmp, tmp, tmp), 0);
	/* Static too, with the private libraries pkg-config names. */
	CU_ASSERT_EQUAL(sh("cd %s && export PKG_CONFIG_PATH=%s/dest/usr/local/lib/pkgconfig && "
	    "cc -std=c11 %s -o prog-static prog.c $(pkg-config --static "
	    "--define-variable=prefix=%s/dest/usr/local --cflags libflume) "
	    "%s/dest/usr/local/lib/libflume.a $(pkg-config --static "
	    "--define-variable=prefix=%s/dest/usr/local --libs-only-l libflume "
	    "| sed 's/-lflume//') >cc-static.log 2>&1 && timeout 30 ./prog-static %s "
	    ">>prog.out 2>&1", tmp, tmp, cflags, tmp, tmp, tmp, d.broker), 0);

	/* make uninstall leaves only the configuration file. */
	CU_ASSERT_EQUAL_FATAL(sh("timeout 300 make -s --no-print-directory uninstall "
	    "PREFIX=/usr/local DESTDIR=%s/dest B=%s BIN=%s SANITIZE=%s "
	    ">>%s/make.log 2>&1", tmp, b, support_bindir(), san, tmp), 0);
	CU_ASSERT_EQUAL(sh("test \"$(cd %s/dest && find . -type f -o -type l)\" = "
	    "./usr/local/etc/flume/flume.conf", tmp), 0);
}

TEST_SUITE("install", setup, teardown,
	{ "make install, build against it with pkg-config, uninstall",
	    test_install_build_run });
