/* SPDX-License-Identifier: MIT */
/*
 * A test program in three phases for -D and --control (tests/e2e/
 * prec_control.sh). Each phase burns the same CPU work in its own function
 * and touches FAULTS fresh pages (one minor fault each):
 *
 *   phases CTL ACK [MSTEPS [FAULTS]]
 *       phase_one(); writes "enable\n" to the FIFO CTL and waits for "ack"
 *       on the FIFO ACK; phase_two(); "disable\n", waits; phase_three().
 *       Recorded under prec -D -1 --control fifo:CTL,ACK, only phase_two
 *       shows.
 *   phases --prctl [MSTEPS [FAULTS]]
 *       opens a task-clock counter of its own, then
 *       prctl(PR_TASK_PERF_EVENTS_DISABLE); phase_one();
 *       prctl(PR_TASK_PERF_EVENTS_ENABLE); phase_two();
 *       prctl(PR_TASK_PERF_EVENTS_DISABLE); phase_three(); and prints
 *       "own counter: N ns, phase_two: M ns of CPU": the prctl calls switch
 *       the program's own counter, not those another process (prec) opened
 *       on it.
 *
 * MSTEPS: million xorshift steps per phase (default 100); FAULTS default
 * 1000.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

static long faults = 1000;
static unsigned long sink = 1;

static void touch_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(faults * page), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (long i = 0; i < faults; i++)
		p[i * page] = 1;
	munmap((void *)p, (size_t)(faults * page));
}

NOINL void phase_one(void)
{
	FRAME();
	touch_pages();
	sink = burn(sink, 100);
}

NOINL void phase_two(void)
{
	FRAME();
	touch_pages();
	sink = burn(sink, 100);
}

NOINL void phase_three(void)
{
	FRAME();
	touch_pages();
	sink = burn(sink, 100);
}

/* Write cmd to the control FIFO and wait for the "ack" line (perf sends
 * "ack\n" and a NUL byte: NULs are skipped). */
static void command(int ctl, int ack, const char *cmd)
{
	char line[16];
	size_t got = 0;
	char ch;

	if (write(ctl, cmd, strlen(cmd)) != (ssize_t)strlen(cmd)) {
		perror("phases: write");
		exit(1);
	}
	alarm(30);      /* no answer: end rather than hang a test */
	for (;;) {
		if (read(ack, &ch, 1) != 1) {
			fprintf(stderr, "phases: no ack for %s", cmd);
			exit(1);
		}
		if (ch == '\n')
			break;
		if (ch && got < sizeof(line) - 1)
			line[got++] = ch;
	}
	alarm(0);
	line[got] = 0;
	if (strcmp(line, "ack")) {
		fprintf(stderr, "phases: unexpected answer to %s", cmd);
		exit(1);
	}
}

static long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int run_prctl(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	long t0, t1, count = 0;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0) {
		perror("phases: perf_event_open");
		return 1;
	}
	prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
	phase_one();
	prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
	t0 = cpu_ns();
	phase_two();
	t1 = cpu_ns();
	prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
	phase_three();
	if (read(fd, &count, sizeof(count)) != sizeof(count)) {
		perror("phases: read");
		return 1;
	}
	printf("own counter: %ld ns, phase_two: %ld ns of CPU\n", count, t1 - t0);
	return 0;
}

int main(int argc, char **argv)
{
	bool use_prctl = argc > 1 && !strcmp(argv[1], "--prctl");
	int first = use_prctl ? 2 : 3, ctl, ack;

	if (argc < first || work_setup(argc - first + 1, argv + first - 1, "phases")) {
		fprintf(stderr, "usage: phases CTL-FIFO ACK-FIFO [MSTEPS [FAULTS]]\n"
			"       phases --prctl [MSTEPS [FAULTS]]\n");
		return 2;
	}
	if (argc > first + 1)
		faults = atol(argv[first + 1]);
	if (argc <= first)
		unit = 1000000;         /* 100 million steps per phase */
	if (use_prctl)
		return run_prctl();
	ctl = open(argv[1], O_WRONLY);
	ack = open(argv[2], O_RDONLY);
	if (ctl < 0 || ack < 0) {
		perror("phases: open");
		return 1;
	}
	phase_one();
	command(ctl, ack, "enable\n");
	phase_two();
	command(ctl, ack, "disable\n");
	phase_three();
	printf("phases done: %lu\n", sink & 1);
	return 0;
}
