/* SPDX-License-Identifier: MIT */
/*
 * perf report --stdio's layout: the '#' header lines, one column per value
 * and sort key with titles and dotted rules, two-decimal percentages; the
 * call graphs under the entries are print_graph.c's.
 */
#include "print.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "common/stats.h"
#include "format/blocks.h"
#include "dump.h"
#include "latency.h"
#include "print_int.h"
#include "print_line.h"


static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* ---- the report --------------------------------------------------------- */

void unit_count(uint64_t v, char *buf, size_t n)
{
	char unit = ' ';

	if (v > 1000000000ull) {
		v /= 1000000000ull;
		unit = 'G';
	} else if (v > 1000000ull) {
		v /= 1000000ull;
		unit = 'M';
	} else if (v > 1000ull) {
		v /= 1000ull;
		unit = 'K';
	}
	snprintf(buf, n, "%" PRIu64 "%c", v, unit);
}

/* The period and samples the header counts and the percentages are of.
 * --dso and --symbols hide entries; as in perf, the relative percentages
 * and the counts in the header are then of what is shown. */
void print_shown_totals(struct load *l, const struct hist *h, uint64_t *period, uint64_t *count)
{
	*period = h->total_period;
	*count = h->total_count;
	if (!load_filters_frames(l))
		return;
	*period = *count = 0;
	for (size_t i = 0; i < h->nr_entries; i++) {
		if (!load_frame_wanted(l, &h->frames[h->entries[i].frame]))
			continue;
		*period += h->entries[i].self_period;
		*count += h->entries[i].self_count;
	}
}

void print_cols_init(const struct hist *h, bool dso_list, struct col *cols, size_t *nc)
{
	char buf[4096];

	*nc = h->opts.nr_keys;
	for (size_t j = 0; j < *nc; j++) {
		const struct sort_key *sk = sort_key_get(h->opts.keys[j]);

		cols[j].sk = sk;
		cols[j].width = sk->min_width ? sk->min_width : (int)strlen(sk->title);
		for (size_t i = 0; i < h->nr_entries; i++) {
			const struct hentry *e = &h->entries[i];
			int w;

			sk->text(h, e, buf, sizeof(buf));
			w = (int)(sk->width ? sk->width(e, buf) : strlen(buf));
			/* perf's unresolved_col_width (not with a --dso list) */
			if (sk->unresolved_width && !dso_list && !h->frames[e->frame].sym &&
			    w < sk->unresolved_width)
				w = sk->unresolved_width;
			if (w > cols[j].width)
				cols[j].width = w;
		}
	}
}

/* Each column as wide as its title (or the key's least width) and its
 * widest cell, entries hidden by filters included (as perf). */
void col_widths(const struct load *l, const struct hist *h, struct col *cols, size_t nc)
{
	size_t n;

	(void)nc;
	print_cols_init(h, load_options(l)->f.dsos != NULL, cols, &n);
}

/* "  Error" after a share's title, "  ......." under it (--error) */
static int error_title(struct buf *b, const struct print_opts *po, bool dots)
{
	return po->error ? buf_printf(b, "  %*s", ERROR_WIDTH, dots ? "......." : "Error") : 0;
}

/* The share columns' titles (dots: their rules), after the '#' */
static int share_titles(struct buf *b, const struct print_opts *po, bool dots)
{
	int ret;

	if (po->latency)
		return latency_titles(b, po, dots);
	ret = buf_printf(b, "%s", dots ? " ........" : po->children ? " Children" : " Overhead");
	if (!ret)
		ret = error_title(b, po, dots);
	if (!ret && po->children)
		ret = buf_printf(b, "%s", dots ? "  ........" : "      Self");
	if (!ret && po->children)
		ret = error_title(b, po, dots);
	return ret;
}

int print_title_line(struct buf *b, const struct print_opts *po, const struct col *cols,
		     size_t nc)
{
	int ret = buf_printf(b, "#");

	if (!ret)
		ret = share_titles(b, po, false);
	if (!ret && po->show_nr)
		ret = buf_printf(b, "  %12s", "Samples");
	if (!ret && po->show_period)
		ret = buf_printf(b, "  %12s", "Period");
	for (size_t j = 0; j < nc && !ret; j++)
		ret = buf_printf(b, cols[j].sk->flags & SK_RIGHT ? "  %*s" : "  %-*s", cols[j].width,
				 cols[j].sk->title);
	return ret;
}

int print_dots_line(struct buf *b, const struct print_opts *po, const struct col *cols,
		    size_t nc)
{
	int ret = buf_printf(b, "#");

	if (!ret)
		ret = share_titles(b, po, true);
	if (!ret && po->show_nr)
		ret = buf_printf(b, "  ............");
	if (!ret && po->show_period)
		ret = buf_printf(b, "  ............");
	for (size_t j = 0; j < nc && !ret; j++) {
		ret = buf_printf(b, "  ");
		for (int w = 0; w < cols[j].width && !ret; w++)
			ret = buf_append(b, ".", 1);
	}
	return ret;
}

static void print_titles(FILE *out, const struct print_opts *po, const struct col *cols,
			 size_t nc)
{
	struct buf b = BUF_INIT;

	if (!print_title_line(&b, po, cols, nc) && !buf_append(&b, "\n", 1) &&
	    !print_dots_line(&b, po, cols, nc))
		fwrite(b.data, 1, b.len, out);
	fprintf(out, "\n#\n");
	buf_free(&b);
}

void error_cell(double pct_v, uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "\xc2\xb1%5.2f%%", 100 * stats_share_se(pct_v / 100, (double)n));
}

/* A share column of an entry line, where print_pcts says; in perf's
 * colours when po->color (a terminal's text: red from 5%, green above
 * 0.5%; the browser colours by itself, from pcts); with --error its
 * standard error after it, from the samples t counts. */
static int entry_share(struct buf *b, const struct print_opts *po, uint64_t v,
		       const struct print_totals *t, struct print_pcts *pcts)
{
	double p = pct(v, t->period);
	const char *color = !po->color ? NULL : p >= 5.0 ? "\033[31m" : p > 0.5 ? "\033[32m" : NULL;
	size_t at = b->len + 2;
	char cell[32];
	int ret = color ? buf_printf(b, "  %s%7.2f%%\033[m", color, p) : buf_printf(b, "  %7.2f%%", p);

	if (!ret && pcts && pcts->nr < 2) {
		pcts->at[pcts->nr] = at;
		pcts->width[pcts->nr] = b->len - at;
		pcts->pct[pcts->nr++] = p;
	}
	if (!ret && po->error) {
		error_cell(p, t->samples, cell, sizeof(cell));
		ret = buf_printf(b, "  %s", cell);
	}
	return ret;
}

int print_entry_line(struct buf *b, const struct hist *h, const struct print_opts *po,
		     const struct col *cols, size_t nc, const struct hentry *e,
		     const struct print_totals *t, struct print_pcts *pcts)
{
	char cell[4096];
	int ret;

	if (pcts)
		pcts->nr = 0;
	if (po->latency) {
		ret = latency_values(b, po, e, t->period, t->latency);
	} else {
		ret = entry_share(b, po, po->children ? e->total_period : e->self_period, t, pcts);
		if (!ret && po->children)
			ret = entry_share(b, po, e->self_period, t, pcts);
	}
	if (!ret && po->show_nr)
		ret = buf_printf(b, "  %12" PRIu64, e->self_count);
	if (!ret && po->show_period)
		ret = buf_printf(b, "  %12" PRIu64, e->self_period);
	for (size_t j = 0; j < nc && !ret; j++) {
		unsigned flags = cols[j].sk->flags;

		cols[j].sk->text(h, e, cell, sizeof(cell));
		/* perf pads a last column, but for the symbol-like ones */
		if (j + 1 == nc && !(flags & SK_RIGHT) && (flags & SK_SYMBOL_LIKE))
			ret = buf_printf(b, "  %s", cell);
		else
			ret = buf_printf(b, flags & SK_RIGHT ? "  %*s" : "  %-*s", cols[j].width, cell);
	}
	return ret;
}

/* One entry's line: its percentages, counts and cells. */
static void print_entry(FILE *out, struct buf *b, const struct hist *h,
			const struct print_opts *po, const struct col *cols, size_t nc,
			const struct hentry *e, const struct print_totals *t)
{
	buf_reset(b);
	if (!print_entry_line(b, h, po, cols, nc, e, t, NULL))
		fwrite(b->data, 1, b->len, out);
	fputc('\n', out);
}

/* The entries that pass the percent limit, the count filter and the frame
 * filters, at most max of them (0: all), each with its call graph; with
 * mark (out NULL), only marked. */
static size_t entry_lines(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
			  const struct col *cols, size_t nc, int event, const struct print_totals *t,
			  size_t max, bool *mark)
{
	struct buf line = BUF_INIT;
	size_t shown = 0;

	for (size_t i = 0; i < h->nr_entries && (!max || shown < max); i++) {
		const struct hentry *e = &h->entries[i];
		double p = pct(po->children ? e->total_period : e->self_period, t->period);

		if (po->percent_limit > 0 && p < po->percent_limit)
			continue;
		if (po->count_filter && e->self_count <= po->count_filter)
			continue;
		if (load_filters_frames(l) && !load_frame_wanted(l, &h->frames[e->frame]))
			continue;
		shown++;
		if (mark) {
			mark[i] = true;
			continue;
		}
		print_entry(out, &line, h, po, cols, nc, e, t);
		/* an event without call chains has no graph (perf's way) */
		if (po->callchain && e->tree && load_event_has_chains(l, event))
			print_callchain(out, po, e, t->period);
	}
	buf_free(&line);
	return shown;
}

int print_event(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
		       int event)
{
	struct col cols[SORT_NR];
	size_t nc;
	uint64_t all, shown_period, shown_count;
	struct print_totals t = { 0 };
	char cnt[32];
	int ret = hist_build(h, event);

	if (ret)
		return ret;
	all = load_event_period(l, event);
	print_shown_totals(l, h, &shown_period, &shown_count);
	t.period = po->absolute && all > shown_period ? all : shown_period;
	t.samples = po->absolute && all > shown_period ? load_event_samples(l, event) : shown_count;
	if (po->latency)
		t.latency = latency_total(l, h, po, event);
	if (!po->quiet) {
		unit_count(shown_count, cnt, sizeof(cnt));
		fprintf(out, "# Samples: %s of event '%s'\n", cnt, load_event_name(l, event));
		fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", shown_period);
	}
	print_cols_init(h, load_options(l)->f.dsos != NULL, cols, &nc);
	if (!po->quiet)
		print_titles(out, po, cols, nc);
	entry_lines(out, l, h, po, cols, nc, event, &t, 0, NULL);
	fprintf(out, "\n\n");
	return 0;
}

size_t print_entry_lines(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
			 int event, uint64_t total, size_t max)
{
	struct print_totals t = { .period = total };
	struct col cols[SORT_NR];
	size_t nc;

	print_cols_init(h, load_options(l)->f.dsos != NULL, cols, &nc);
	return entry_lines(out, l, h, po, cols, nc, event, &t, max, NULL);
}

size_t print_entry_mark(struct load *l, struct hist *h, const struct print_opts *po, int event,
			uint64_t total, size_t max, bool *mark)
{
	struct print_totals t = { .period = total };

	return entry_lines(NULL, l, h, po, NULL, 0, event, &t, max, mark);
}

int print_report(FILE *out, struct load *l, struct hist *h, const struct print_opts *po)
{
	const struct session *s0 = load_session(l, 0);

	if (!po->quiet) {
		/* perf names its own kind of file here, whatever the file's name */
		if (!po->header_shown)
			fprintf(out, "# To display the %s header info, please use --header/--header-only options.\n#\n",
				s0 ? session_kind_name(s0) : "prec.data");
		fprintf(out, "#\n");
		fprintf(out, "# Total Lost Samples: %" PRIu64 "\n#\n", load_lost_samples(l));
	}
	if (po->group || print_has_groups(l))
		return print_groups(out, l, h, po);
	for (size_t e = 0; e < load_nr_events(l); e++) {
		int ret;

		/* prec --overwrite's tracking event takes no samples: as perf, no
		 * section for an empty dummy event */
		if (!strncmp(load_event_name(l, (int)e), "dummy", 5) && !load_event_period(l, (int)e))
			continue;
		ret = po->event && strcmp(po->event, load_event_name(l, (int)e)) ? 0 :
		      print_event(out, l, h, po, (int)e);

		if (ret)
			return ret;
	}
	return 0;
}

/* ---- --header and --stats ------------------------------------------------ */

static void meta_line(FILE *out, const struct metadata *m, uint16_t tag, const char *label)
{
	const struct meta_item *it = metadata_get(m, tag);

	if (!it)
		return;
	fprintf(out, "# %s : ", label);
	if (it->kind == META_U64) {
		uint64_t v = 0;

		metadata_get_u64(m, tag, &v);
		fprintf(out, "%" PRIu64 "\n", v);
		return;
	}
	for (uint32_t i = 0; i < it->len; i++)
		fputc(it->value[i] ? it->value[i] : ' ', out);
	fputc('\n', out);
}

/* prec --clockid: the clock of the timestamps, as perf's header names it */
static void clock_line(FILE *out, const struct metadata *m)
{
	static const char *const names[12] = {
		[0] = "realtime", [1] = "monotonic", [4] = "monotonic_raw", [7] = "boottime",
		[11] = "tai",
	};
	uint64_t v;

	if (!metadata_get_u64(m, META_CLOCK_ID, &v) || v == 0xFFFFFFFFu)
		return;
	fprintf(out, "# clockid: %s (%" PRIu64 ")\n", v < 12 && names[v] ? names[v] : "unknown", v);
}

/* The workload's end, from its wait status: how it exited or what killed it. */
static void workload_exit_line(FILE *out, const struct metadata *m)
{
	uint64_t v;
	int st;

	if (!metadata_get_u64(m, META_WORKLOAD_EXIT, &v))
		return;
	st = (int)v;
	fprintf(out, "# workload exit : ");
	if (v > 0xffff)
		fprintf(out, "wait status %#" PRIx64 "\n", v);
	else if (WIFEXITED(st))
		fprintf(out, "exited with status %d\n", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(out, "killed by signal %d (SIG%s)%s\n", WTERMSIG(st),
			sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?",
			WCOREDUMP(st) ? ", core dumped" : "");
	else
		fprintf(out, "wait status %#x\n", st);
}

static void bit_names(FILE *out, const char *label, uint64_t v, const char *const *names,
		      size_t n)
{
	bool first = true;

	if (!v)
		return;
	fprintf(out, ", %s = ", label);
	for (size_t i = 0; i < 64; i++) {
		if (!(v & (1ull << i)))
			continue;
		if (i < n)
			fprintf(out, "%s%s", first ? "" : "|", names[i]);
		else
			fprintf(out, "%s(1<<%zu)", first ? "" : "|", i);
		first = false;
	}
}

void print_attr_fields(FILE *out, const struct perf_event_attr *a)
{
	uint64_t bits;

#define U(label, v) do { if (v) fprintf(out, ", %s = %llu", label, (unsigned long long)(v)); } while (0)
#define X(label, v) do { if (v) fprintf(out, ", %s = %#llx", label, (unsigned long long)(v)); } while (0)
	U("type", a->type);
	U("size", a->size);
	X("config", a->config);
	U("{ sample_period, sample_freq }", a->sample_period);
	bit_names(out, "sample_type", a->sample_type, attr_sample_bits, ATTR_SAMPLE_BITS);
	bit_names(out, "read_format", a->read_format, attr_read_bits, ATTR_READ_BITS);
	memcpy(&bits, (const uint8_t *)a + offsetof(struct perf_event_attr, read_format) + 8, 8);
	for (size_t i = 0; i < ATTR_FLAGS; i++) {
		if (i == 15) {          /* precise_ip: two bits */
			U("precise_ip", (bits >> 15) & 3);
			continue;
		}
		if (i != 16 && (bits & (1ull << i)))
			fprintf(out, ", %s = 1", attr_flags[i]);
	}
	U("{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	U("bp_type", a->bp_type);
	X("{ bp_addr, config1 }", a->config1);
	X("{ bp_len, config2 }", a->config2);
	X("branch_sample_type", a->branch_sample_type);
	X("sample_regs_user", a->sample_regs_user);
	U("sample_stack_user", a->sample_stack_user);
	U("clockid", (uint32_t)a->clockid);
	X("sample_regs_intr", a->sample_regs_intr);
	U("aux_watermark", a->aux_watermark);
	U("sample_max_stack", a->sample_max_stack);
#undef U
#undef X
}

void print_header(FILE *out, const struct load *l)
{
	for (size_t i = 0; i < load_nr_sessions(l); i++) {
		const struct session *s = load_session(l, i);
		const struct metadata *m = &s->meta;
		uint64_t v;

		if (s->pd) {
			print_perf_header(out, s);
			continue;
		}
		print_captured_on(out, m);
		fprintf(out, "# header version : %u.%u\n", s->header.version_major,
			s->header.version_minor);
		fprintf(out, "# data size : %" PRIu64 "\n", session_size(s));
		meta_line(out, m, META_HOSTNAME, "hostname");
		meta_line(out, m, META_OS_RELEASE, "os release");
		meta_line(out, m, META_OS_VERSION, "os version");
		meta_line(out, m, META_WRITER, "prec version");
		meta_line(out, m, META_ARCH, "arch");
		meta_line(out, m, META_NR_CPUS_ONLINE, "nrcpus online");
		meta_line(out, m, META_NR_CPUS_AVAIL, "nrcpus avail");
		meta_line(out, m, META_CPU_DESC, "cpudesc");
		meta_line(out, m, META_TOTAL_MEM_KB, "total memory (kB)");
		meta_line(out, m, META_CMDLINE, "cmdline");
		meta_line(out, m, META_PAGE_SIZE, "page size");
		meta_line(out, m, META_PERF_EVENT_PARANOID, "perf_event_paranoid");
		clock_line(out, m);
		meta_line(out, m, META_NR_SAMPLES, "samples");
		meta_line(out, m, META_NR_LOST_SAMPLES, "lost samples");
		workload_exit_line(out, m);
		meta_line(out, m, META_REPAIRED, "repaired after it was cut short, bytes cut off");
		if (metadata_get_u64(m, META_START_CLOCK_NS, &v)) {
			uint64_t e;

			fprintf(out, "# sample duration : %10.3f ms\n",
				metadata_get_u64(m, META_END_CLOCK_NS, &e) && e >= v ? (double)(e - v) / 1e6 : 0.0);
		}
		for (size_t e = 0; e < s->nr_events; e++) {
			fprintf(out, "# event : name = %s, , id = {", s->events[e].name ? s->events[e].name : "");
			for (size_t k = 0; k < s->events[e].nr_ids; k++)
				fprintf(out, "%s %" PRIu64, k ? "," : "", s->events[e].ids[k].id);
			fprintf(out, " }");
			print_attr_fields(out, &s->events[e].attr);
			fputc('\n', out);
		}
		if (s->nr_build_ids) {
			fprintf(out, "# build ids:\n");
			for (size_t b = 0; b < s->nr_build_ids; b++) {
				fprintf(out, "#   ");
				for (unsigned k = 0; k < s->build_ids[b].size; k++)
					fprintf(out, "%02x", s->build_ids[b].id[k]);
				fprintf(out, " %s\n", s->build_ids[b].path);
			}
		}
		if (s->kallsyms)
			fprintf(out, "# kernel symbols : a copy is in the file (%zu bytes)\n", s->kallsyms_len);
		fprintf(out, "# ========\n#\n");
	}
}

void print_stats(FILE *out, const struct load *l, const struct hist *h)
{
	const struct unwinder *unw = load_unwinder(l);
	struct symbolizer_stats st;

	symbolizer_get_stats(load_symbolizer(l), &st);
	for (size_t i = 0; i < load_nr_sessions(l); i++) {
		const struct session *s = load_session(l, i);

		fprintf(out, "Aggregated stats of %s:\n", s->path);
		fprintf(out, "%20s events: %10" PRIu64 "\n", "TOTAL", s->stats.records);
		for (uint32_t t = 0; t < PERF_RECORD_MAX; t++) {
			const char *name = record_type_name(t);

			if (s->stats.by_type[t] && name)
				fprintf(out, "%20s events: %10" PRIu64 "\n", name, s->stats.by_type[t]);
		}
		if (s->pd) {
			const struct perfdata_stats *ps = perfdata_stats(s->pd);

			for (uint32_t t = 64; t < PERFDATA_TYPE_END; t++)
				if (ps->by_type[t - 64])
					fprintf(out, "%20s events: %10" PRIu64 "\n", perfdata_type_name(t),
						ps->by_type[t - 64]);
			if (ps->bad_compressed || ps->bytes_ignored)
				fprintf(out, "%20s        : %10" PRIu64 " compressed records not read, %"
					PRIu64 " bytes of data not read\n", "damage", ps->bad_compressed,
					ps->bytes_ignored);
		}
		fprintf(out, "%20s events: %10" PRIu64 "\n", "UNKNOWN", s->stats.unknown_records);
		fprintf(out, "%20s        : %10" PRIu64 "\n", "undecodable records", s->stats.bad_records);
		fprintf(out, "%20s        : %10" PRIu64 "\n", "lost samples", s->stats.lost_samples);
		fprintf(out, "%20s        : %10" PRIu64 "\n", "out of order", s->stats.out_of_order);
		if (s->stats.stacks_redecoded)
			fprintf(out, "%20s        : %10" PRIu64 " (their blocks decoded again)\n",
				"stack copies", s->stats.stacks_redecoded);
		fprintf(out, "%20s        : %10" PRIu64 " corrupt, %" PRIu64 " skipped, %" PRIu64
			" bytes ignored\n", "blocks", s->cstats->corrupt_blocks, s->cstats->skipped_blocks,
			s->cstats->bytes_ignored);
	}
	fprintf(out, "%20s        : %10" PRIu64 "\n", "filtered samples", load_filtered(l));
	fprintf(out, "%20s        : %10" PRIu64 " of %" PRIu64 " (last event shown)\n",
		"unresolved samples", h->unresolved, h->total_count);
	fprintf(out, "%20s        : %10" PRIu64 " used, %" PRIu64 " missing, %" PRIu64
		" build-id mismatch\n", "binaries", st.dsos, st.dsos_missing, st.dsos_mismatch);
	if (st.debuginfod_asked)
		fprintf(out, "%20s        : %10" PRIu64 " asked, %" PRIu64 " files\n", "debuginfod",
			st.debuginfod_asked, st.debuginfod_files);
	if (unw) {
		struct unwind_stats us;

		unwinder_get_stats(unw, &us);
		if (us.samples) {
			fprintf(out, "%20s        : %10" PRIu64 " samples, %" PRIu64 " frames, %" PRIu64
				" stopped early", "dwarf unwinding", us.samples, us.frames, us.stopped);
			if (us.debug_frame)
				fprintf(out, ", %" PRIu64 " lookups in .debug_frame", us.debug_frame);
			fputc('\n', out);
		}
	}
}
