/* SPDX-License-Identifier: MIT */
/*
 * perf report --stdio's layout: the '#' header lines, one column per value
 * and sort key with titles and dotted rules, two-decimal percentages, and
 * call graphs drawn with '|' and '--' branches under each entry.
 */
#include "print.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "format/blocks.h"
#include "dump.h"
#include "print_int.h"

#define MARGIN 12

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* ---- call graphs ------------------------------------------------------ */

struct cg {
	FILE *out;
	const struct print_opts *po;
	uint64_t total;         /* graph: the event's total; fractal: per parent */
	char prefix[4096];
};

/* The least period a branch needs, as perf computes it: a whole number,
 * rounded down of the total (graph), up of the parent's (fractal). */
static uint64_t min_period(const struct print_opts *po, uint64_t base)
{
	double v = (double)base * (po->threshold / 100.0);

	return po->mode == CG_FRACTAL ? (uint64_t)ceil(v) : (uint64_t)v;
}

static bool shown(const struct cg *c, const struct cnode *n, uint64_t parent)
{
	return n->period >= min_period(c->po, c->po->mode == CG_FRACTAL ? parent : c->total);
}

static size_t nr_shown(const struct cg *c, const struct cnode *n, uint64_t parent)
{
	size_t k = 0;

	for (const struct cnode *ch = n->child; ch; ch = ch->next)
		k += shown(c, ch, parent);
	return k;
}

static void put_prefix(struct cg *c, size_t len)
{
	fprintf(c->out, "%*s%.*s", MARGIN, "", (int)len, c->prefix);
}

/* Children of n, each as a branch "|--xx.xx%--name" under the prefix. */
static void graph_children(struct cg *c, const struct cnode *n, size_t plen);

/* A node printed at the current prefix, then its single-path continuation
 * and branches. `lead` is the text before the name on the first line. */
static void graph_path(struct cg *c, const struct cnode *n, size_t plen)
{
	/* follow the path while one child carries everything */
	while (n->child && nr_shown(c, n, n->period) == 1 && n->child->period == n->period &&
	       !n->child->next) {
		n = n->child;
		put_prefix(c, plen);
		fprintf(c->out, "%s\n", n->name);
	}
	if (n->child && nr_shown(c, n, n->period))
		graph_children(c, n, plen);
}

static void graph_children(struct cg *c, const struct cnode *n, size_t plen)
{
	size_t left = nr_shown(c, n, n->period);

	for (const struct cnode *ch = n->child; ch; ch = ch->next) {
		bool last;
		uint64_t base = c->po->mode == CG_FRACTAL ? n->period : c->total;

		if (!shown(c, ch, n->period))
			continue;
		last = --left == 0;
		put_prefix(c, plen);
		fprintf(c->out, "|%10s\n", "");
		put_prefix(c, plen);
		fprintf(c->out, "%c--%.2f%%--%s\n", last ? ' ' : '|', pct(ch->period, base), ch->name);
		if (plen + 11 < sizeof(c->prefix)) {
			memcpy(c->prefix + plen, last ? "           " : "|          ", 11);
			graph_path(c, ch, plen + 11);
		}
	}
}

static void print_graph(struct cg *c, const struct cnode *root)
{
	const struct cnode *n = root->child;
	bool skip = c->po->skip_first, printed = false;
	size_t plen = 0;

	if (!n || n->next || n->period != root->period) {
		if (!nr_shown(c, root, root->period))
			return;         /* every branch under the threshold */
		graph_children(c, root, 0);
		fputc('\n', c->out);
		return;
	}
	/* a single root: its path one name a line, then its branches */
	for (;;) {
		if (skip) {
			skip = false;
		} else if (!printed) {
			fprintf(c->out, "%*s|\n", MARGIN, "");
			fprintf(c->out, "%*s---%s\n", MARGIN, "", n->name);
			memcpy(c->prefix, "   ", 3);
			plen = 3;
			printed = true;
		} else {
			put_prefix(c, plen);
			fprintf(c->out, "%s\n", n->name);
		}
		if (!n->child || nr_shown(c, n, n->period) != 1 || n->child->period != n->period ||
		    n->child->next)
			break;
		n = n->child;
	}
	if (n->child && nr_shown(c, n, n->period)) {
		graph_children(c, n, plen);
		printed = true;
	}
	/* nothing at all when the one name was left out */
	if (printed)
		fputc('\n', c->out);
}

/* flat and folded: one line (or block) per path from the root to a leaf */
static void paths(struct cg *c, const struct cnode *n, const char **stack, size_t depth,
		  uint64_t total)
{
	if (depth >= 1024)
		return;
	for (const struct cnode *ch = n->child; ch; ch = ch->next) {
		uint64_t rest = ch->period;

		for (const struct cnode *g = ch->child; g; g = g->next)
			rest -= g->period <= rest ? g->period : rest;
		stack[depth] = ch->name;
		if (rest && pct(rest, total) >= c->po->threshold) {
			if (c->po->mode == CG_FOLDED) {
				fprintf(c->out, "%.2f%% ", pct(rest, total));
				for (size_t i = 0; i <= depth; i++)
					fprintf(c->out, "%s%s", i ? ";" : "", stack[i]);
				fputc('\n', c->out);
			} else {
				fprintf(c->out, "%*s%.2f%%\n", MARGIN - 1, "", pct(rest, total));
				for (size_t i = 0; i <= depth; i++)
					fprintf(c->out, "%*s%s\n", MARGIN + 4, "", stack[i]);
				fputc('\n', c->out);
			}
		}
		paths(c, ch, stack, depth + 1, total);
	}
}

void print_callchain(FILE *out, const struct print_opts *po, const struct hentry *e,
		    uint64_t total)
{
	struct cg c = { .out = out, .po = po, .total = total };
	const struct cnode *root = e->tree;
	if (!root || !root->child)
		return;
	if (po->mode != CG_FRACTAL && root->period < min_period(po, total))
		return;
	if (po->mode == CG_GRAPH || po->mode == CG_FRACTAL) {
		print_graph(&c, root);
	} else {
		const char *stack[1024];

		paths(&c, root, stack, 0, total);
	}
}

/* -g graph|flat|fractal|folded|none[,THRESHOLD][,caller|callee] */
int print_parse_callgraph(const char *arg, struct print_opts *po, struct hist_opts *ho,
			  bool *order_set, struct err *err)
{
	char buf[256];
	char *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return err_set(err, -EINVAL, "--call-graph: value too long");
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		double v;

		if (!strcmp(t, "graph"))
			po->mode = CG_GRAPH;
		else if (!strcmp(t, "flat"))
			po->mode = CG_FLAT;
		else if (!strcmp(t, "fractal"))
			po->mode = CG_FRACTAL;
		else if (!strcmp(t, "folded"))
			po->mode = CG_FOLDED;
		else if (!strcmp(t, "none"))
			po->mode = CG_NONE;
		else if (!strcmp(t, "caller") || !strcmp(t, "callee")) {
			ho->caller = t[4] == 'e' && t[5] == 'r';
			*order_set = true;
		} else if (!strcmp(t, "function") || !strcmp(t, "address") || !strcmp(t, "percent") ||
			   !strcmp(t, "period") || !strcmp(t, "count")) {
			/* perf's print-limit and key fields: function keys only */
		} else if ((v = strtod(t, &end)), end != t && !*end && v >= 0 && v <= 100) {
			po->threshold = v;
		} else {
			return err_set(err, -EINVAL, "--call-graph: '%s' is not graph, flat, fractal, "
				       "folded, none, caller, callee or a threshold", t);
		}
	}
	return 0;
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

/* Each column as wide as its title (or the key's least width) and its
 * widest cell, entries hidden by filters included (as perf). */
void col_widths(const struct load *l, const struct hist *h, struct col *cols, size_t nc)
{
	bool dso_list = load_options(l)->f.dsos != NULL;
	char buf[4096];

	for (size_t j = 0; j < nc; j++) {
		const struct sort_key *sk = cols[j].sk;

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

static void print_titles(FILE *out, const struct print_opts *po, const struct col *cols,
			 size_t nc)
{
	fprintf(out, "#");
	if (po->children)
		fprintf(out, " Children      Self");
	else
		fprintf(out, " Overhead");
	if (po->show_nr)
		fprintf(out, "  %12s", "Samples");
	if (po->show_period)
		fprintf(out, "  %12s", "Period");
	for (size_t j = 0; j < nc; j++)
		fprintf(out, cols[j].sk->flags & SK_RIGHT ? "  %*s" : "  %-*s", cols[j].width,
			cols[j].sk->title);
	fprintf(out, "\n#");
	fprintf(out, po->children ? " ........  ........" : " ........");
	if (po->show_nr)
		fprintf(out, "  ............");
	if (po->show_period)
		fprintf(out, "  ............");
	for (size_t j = 0; j < nc; j++) {
		fputs("  ", out);
		for (int w = 0; w < cols[j].width; w++)
			fputc('.', out);
	}
	fprintf(out, "\n#\n");
}

/* "  12.34%" in 8 columns, in perf's colours when asked: red from 5%,
 * green above 0.5% */
static void put_pct(FILE *out, const struct print_opts *po, double p)
{
	const char *color = !po->color ? NULL : p >= 5.0 ? "\033[31m" : p > 0.5 ? "\033[32m" : NULL;

	if (color)
		fprintf(out, "%s%7.2f%%\033[m", color, p);
	else
		fprintf(out, "%7.2f%%", p);
}

/* One entry's line: its percentages, counts and cells. */
static void print_entry(FILE *out, const struct hist *h, const struct print_opts *po,
			const struct col *cols, size_t nc, const struct hentry *e, uint64_t total)
{
	char buf[4096];

	if (po->children) {
		fputs("  ", out);
		put_pct(out, po, pct(e->total_period, total));
		fputs("  ", out);
		put_pct(out, po, pct(e->self_period, total));
	} else {
		fputs("  ", out);
		put_pct(out, po, pct(e->self_period, total));
	}
	if (po->show_nr)
		fprintf(out, "  %12" PRIu64, e->self_count);
	if (po->show_period)
		fprintf(out, "  %12" PRIu64, e->self_period);
	for (size_t j = 0; j < nc; j++) {
		unsigned flags = cols[j].sk->flags;

		cols[j].sk->text(h, e, buf, sizeof(buf));
		/* perf pads a last column, but for the symbol-like ones */
		if (j + 1 == nc && !(flags & SK_RIGHT) && (flags & SK_SYMBOL_LIKE))
			fprintf(out, "  %s", buf);
		else
			fprintf(out, flags & SK_RIGHT ? "  %*s" : "  %-*s", cols[j].width, buf);
	}
	fputc('\n', out);
}

/* The entries that pass the percent limit, the count filter and the frame
 * filters, at most max of them (0: all), each with its call graph; with
 * mark (out NULL), only marked. */
static size_t entry_lines(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
			  const struct col *cols, size_t nc, int event, uint64_t total, size_t max,
			  bool *mark)
{
	size_t shown = 0;

	for (size_t i = 0; i < h->nr_entries && (!max || shown < max); i++) {
		const struct hentry *e = &h->entries[i];
		double p = pct(po->children ? e->total_period : e->self_period, total);

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
		print_entry(out, h, po, cols, nc, e, total);
		/* an event without call chains has no graph (perf's way) */
		if (po->callchain && e->tree && load_event_has_chains(l, event))
			print_callchain(out, po, e, total);
	}
	return shown;
}

int print_event(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
		       int event)
{
	struct col cols[SORT_NR];
	size_t nc = h->opts.nr_keys;
	uint64_t total, all, shown_period, shown_count;
	char cnt[32];
	int ret = hist_build(h, event);

	if (ret)
		return ret;
	all = load_event_period(l, event);
	print_shown_totals(l, h, &shown_period, &shown_count);
	total = po->absolute && all > shown_period ? all : shown_period;
	if (!po->quiet) {
		unit_count(shown_count, cnt, sizeof(cnt));
		fprintf(out, "# Samples: %s of event '%s'\n", cnt, load_event_name(l, event));
		fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", shown_period);
	}
	for (size_t j = 0; j < nc; j++)
		cols[j].sk = sort_key_get(h->opts.keys[j]);
	col_widths(l, h, cols, nc);
	if (!po->quiet)
		print_titles(out, po, cols, nc);
	entry_lines(out, l, h, po, cols, nc, event, total, 0, NULL);
	fprintf(out, "\n\n");
	return 0;
}

size_t print_entry_lines(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
			 int event, uint64_t total, size_t max)
{
	struct col cols[SORT_NR];
	size_t nc = h->opts.nr_keys;

	for (size_t j = 0; j < nc; j++)
		cols[j].sk = sort_key_get(h->opts.keys[j]);
	col_widths(l, h, cols, nc);
	return entry_lines(out, l, h, po, cols, nc, event, total, max, NULL);
}

size_t print_entry_mark(struct load *l, struct hist *h, const struct print_opts *po, int event,
			uint64_t total, size_t max, bool *mark)
{
	return entry_lines(NULL, l, h, po, NULL, 0, event, total, max, mark);
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
