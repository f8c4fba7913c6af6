/* SPDX-License-Identifier: MIT */
/*
 * Writer throughput: how many MB/s of raw ring-buffer records the container
 * writer takes at a given compression level, with synthetic `-g`-shaped
 * samples (tools/synth.h) handed over in drain-sized spans from 2 CPUs.
 *
 *   build/tools/bench_writer [-l LEVEL] [-m MIB] [-o FILE] [-r REPEAT] [-t]
 *
 * -t compresses on the writer's background thread (opts.background), as the
 * recorder does: the wall-clock MB/s is then what the drain sees.
 *
 * Prints one line per repeat and the median: raw MB/s (wall and CPU), file
 * bytes per sample, compression ratio. For comparison it then compresses the
 * same bytes, in the same 1 MiB pieces, with zstd at level 1, which is what
 * `perf record -z` uses: perf's own file size and compression speed on this
 * data, side by side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "format/container.h"
#include "synth.h"

#define SPAN (256u << 10)

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Fill buf with whole records, about len bytes; returns bytes used. */
static size_t fill(struct synth *s, uint8_t *buf, size_t len, uint32_t cpu, size_t *nr)
{
	size_t off = 0;

	while (off + 64 + 8 * SYNTH_MAX_DEPTH <= len) {
		off += synth_sample(s, buf + off, cpu);
		(*nr)++;
	}
	return off;
}

int main(int argc, char **argv)
{
	struct container_writer_opts opts = { .level = -1 };
	const char *path = "/tmp/bench_writer.data";
	size_t mib = 256, nspans, repeat = 5;
	double mbs[16], cpu_mbs[16], drain_mbs[16];
	int c;

	while ((c = getopt(argc, argv, "l:m:o:r:t")) != -1) {
		switch (c) {
		case 'l': opts.level = atoi(optarg); break;
		case 'm': mib = (size_t)atol(optarg); break;
		case 'o': path = optarg; break;
		case 'r': repeat = (size_t)atol(optarg); break;
		case 't': opts.background = true; break;
		default:
			fprintf(stderr, "usage: bench_writer [-l LEVEL] [-m MIB] [-o FILE] [-r REPEAT] [-t]\n");
			return 2;
		}
	}
	if (repeat < 1 || repeat > 16)
		repeat = 5;
	nspans = (mib << 20) / SPAN;

	/* Pre-generate the spans so that only the writer is timed. */
	uint8_t *spans = malloc(nspans * SPAN);
	size_t *lens = calloc(nspans, sizeof(*lens)), nr = 0, raw = 0;
	struct synth s[2];

	if (!spans || !lens) {
		fprintf(stderr, "bench_writer: out of memory\n");
		return 1;
	}
	synth_init(&s[0], 1, 100, 1000);
	synth_init(&s[1], 2, 101, 1000);
	for (size_t i = 0; i < nspans; i++) {
		lens[i] = fill(&s[i & 1], spans + i * SPAN, SPAN, (uint32_t)(i & 1), &nr);
		raw += lens[i];
	}

	for (size_t r = 0; r < repeat; r++) {
		struct container_writer *w;
		struct container_writer_stats st;
		struct err err = { 0 };
		double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), t, ct;
		double d0 = now(CLOCK_THREAD_CPUTIME_ID), dt;

		if (container_writer_open(&w, path, &opts, &err)) {
			fprintf(stderr, "bench_writer: %s\n", err.msg);
			return 1;
		}
		for (size_t i = 0; i < nspans; i++) {
			/* Split each span in two pieces, as a wrapped ring buffer gives. */
			size_t cut = lens[i] / 2;

			while (cut % 8)
				cut--;
			if (container_write_records(w, (uint32_t)(i & 1), spans + i * SPAN, lens[i],
						    NULL, 0, &err) ||
			    ((i & 1) && container_write_round(w, &err))) {
				fprintf(stderr, "bench_writer: %s\n", err.msg);
				return 1;
			}
		}
		container_writer_get_stats(w, &st);
		if (container_writer_close(w, &err)) {
			fprintf(stderr, "bench_writer: %s\n", err.msg);
			return 1;
		}
		t = now(CLOCK_MONOTONIC) - t0;
		ct = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		dt = now(CLOCK_THREAD_CPUTIME_ID) - d0;
		mbs[r] = (double)raw / 1e6 / t;
		cpu_mbs[r] = (double)raw / 1e6 / ct;
		drain_mbs[r] = (double)raw / 1e6 / dt;
		printf("level %d%s: %zu MB raw, %zu samples: %.0f MB/s wall, %.0f MB/s CPU, "
		       "%.0f MB/s of the calling thread's CPU, %.2f B/sample, ratio %.1f\n",
		       opts.level < 0 ? CONTAINER_DEFAULT_LEVEL : opts.level,
		       opts.background ? " (background)" : "", raw >> 20, nr, mbs[r],
		       cpu_mbs[r], drain_mbs[r], (double)st.file_bytes / (double)nr,
		       (double)raw / (double)st.file_bytes);
	}
	{
		/* perf -z: zstd level 1 over the same bytes in 1 MiB pieces. */
		size_t piece = 1u << 20, out = 0, cap = ZSTD_compressBound(piece);
		uint8_t *dst = malloc(cap), *src = malloc(piece);
		ZSTD_CCtx *z = ZSTD_createCCtx();
		double c0 = now(CLOCK_PROCESS_CPUTIME_ID), ct;
		size_t fill_len = 0;

		for (size_t i = 0; dst && src && z && i < nspans; i++) {
			if (fill_len + lens[i] > piece) {
				out += ZSTD_compressCCtx(z, dst, cap, src, fill_len, 1);
				fill_len = 0;
			}
			memcpy(src + fill_len, spans + i * SPAN, lens[i]);
			fill_len += lens[i];
		}
		if (fill_len && dst && z)
			out += ZSTD_compressCCtx(z, dst, cap, src, fill_len, 1);
		ct = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		printf("zstd -1 (perf -z) on the same data: %.0f MB/s CPU, %.2f B/sample, ratio %.1f\n",
		       (double)raw / 1e6 / ct, (double)out / (double)nr, (double)raw / (double)out);
		ZSTD_freeCCtx(z);
		free(dst);
		free(src);
	}
	qsort(mbs, repeat, sizeof(double), cmp_double);
	qsort(cpu_mbs, repeat, sizeof(double), cmp_double);
	qsort(drain_mbs, repeat, sizeof(double), cmp_double);
	printf("median: %.0f MB/s wall, %.0f MB/s CPU, %.0f MB/s of the calling thread's CPU "
	       "(goal: 200 MB/s)\n", mbs[repeat / 2], cpu_mbs[repeat / 2], drain_mbs[repeat / 2]);
	unlink(path);
	free(spans);
	free(lens);
	return 0;
}
