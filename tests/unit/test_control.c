/* SPDX-License-Identifier: MIT */
/*
 * The --control channel (record/control.c): what fifo:/fd: specs are
 * taken or refused, and the commands read from a pipe in pieces, carried
 * out through the ops and answered "ack\n" (none for an unknown one).
 *
 * The file is included directly, as test_target.c does: the unit-test
 * build does not link record/.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/control.c"

static int stops, switches;

void stop_request(void)
{
	stops++;
}

void switch_output_request(void)
{
	switches++;
}

/* What the ops were asked, as text: "+all -cpu-clock list ". */
static char calls[256];

static int t_enable(void *ctx, const char *name, bool on)
{
	size_t n = strlen(calls);

	(void)ctx;
	if (name && strcmp(name, "cpu-clock"))
		return -ENOENT;
	snprintf(calls + n, sizeof(calls) - n, "%c%s ", on ? '+' : '-', name ? name : "all");
	return 0;
}

static void t_list(void *ctx)
{
	size_t n = strlen(calls);

	(void)ctx;
	snprintf(calls + n, sizeof(calls) - n, "list ");
}

static void test_specs(void **state)
{
	struct control *c;
	struct err err = { 0 };
	char dir[] = "/tmp/test_control.XXXXXX", fifo[64], file[64], spec[160];
	int p[2];

	(void)state;
	assert_int_equal(control_open(&c, NULL, &err), 0);
	assert_null(c);
	assert_int_equal(control_fd(NULL), -1);
	const char *bad[] = { "bogus", "fd:", "fd:abc", "fd:1,", "fd:1,x", "fd:-1", "fifo:",
			      "fifo:,x", "fifo:x,", "FD:1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err = (struct err){ 0 };
		assert_int_equal(control_open(&c, bad[i], &err), -EINVAL);
		assert_null(c);
		assert_non_null(strstr(err.msg, bad[i]));
	}
	err = (struct err){ 0 };
	assert_int_equal(control_open(&c, "fd:987", &err), -EBADF);
	assert_non_null(strstr(err.msg, "descriptor 987 is not open"));

	assert_int_equal(pipe(p), 0);
	snprintf(spec, sizeof(spec), "fd:%d,%d", p[0], p[1]);
	assert_int_equal(control_open(&c, spec, &err), 0);
	assert_int_equal(control_fd(c), p[0]);
	control_close(c);
	/* fd: descriptors stay the caller's */
	assert_true(fcntl(p[0], F_GETFL) >= 0);
	close(p[0]);
	close(p[1]);

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/ctl", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	close(open(file, O_CREAT | O_WRONLY, 0600));
	snprintf(spec, sizeof(spec), "fifo:%s", file);
	err = (struct err){ 0 };
	assert_int_equal(control_open(&c, spec, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "is not a FIFO"));
	snprintf(spec, sizeof(spec), "fifo:%s,%s/none", fifo, dir);
	err = (struct err){ 0 };
	assert_int_equal(control_open(&c, spec, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "cannot open"));
	/* a FIFO nobody else has open: opening does not wait */
	snprintf(spec, sizeof(spec), "fifo:%s,%s", fifo, fifo);
	assert_int_equal(control_open(&c, spec, &err), 0);
	assert_true(control_fd(c) >= 0);
	control_close(c);
	unlink(fifo);
	unlink(file);
	rmdir(dir);
}

static void test_commands(void **state)
{
	struct control_ops ops = { .enable = t_enable, .list = t_list };
	struct control *c;
	struct err err = { 0 };
	char spec[64], acks[64] = "";
	int in[2], out[2];
	const char *cmds = "ping\nenable\ndisable cpu-clock\r\nena";
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	snprintf(spec, sizeof(spec), "fd:%d,%d", in[0], out[1]);
	assert_int_equal(control_open(&c, spec, &err), 0);
	calls[0] = 0;
	stops = switches = 0;

	/* nothing there: returns at once */
	control_process(c, &ops);
	assert_string_equal(calls, "");
	/* whole lines are carried out, a partial one waits for its end */
	assert_int_equal(write(in[1], cmds, strlen(cmds)), (ssize_t)strlen(cmds));
	control_process(c, &ops);
	assert_string_equal(calls, "+all -cpu-clock ");
	assert_int_equal(write(in[1], "ble nope\nbogus\nevlist -v\nsnapshot\nstop", 38), 38);
	assert_int_equal(write(in[1], "\0", 1), 1);
	control_process(c, &ops);
	assert_string_equal(calls, "+all -cpu-clock list ");
	assert_int_equal(switches, 1);
	assert_int_equal(stops, 1);
	/* one ack per command known (enable nope too: perf acks it); none for bogus */
	n = read(out[0], acks, sizeof(acks) - 1);
	assert_int_equal(n, 7 * 4);
	/* the writer goes away: a last command without its newline counts */
	assert_int_equal(write(in[1], "disable", 7), 7);
	close(in[1]);
	control_process(c, &ops);
	assert_string_equal(calls, "+all -cpu-clock list -all ");
	assert_int_equal(control_fd(c), -1);
	control_close(c);
	close(in[0]);
	close(out[0]);
	close(out[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_specs),
		cmocka_unit_test(test_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
