/* SPDX-License-Identifier: MIT */
/*
 * prep --dump-raw: every block of a prec.data file and every record in it,
 * decoded, one line per record (perf report -D in spirit). Problems found
 * on the way go to the log as warnings; the last line counts what was read
 * and what was not.
 */
#include "report/core/input.h"
#include "format/addrcounts.h"
#include "format/samplesums.h"
#include "format/embed.h"
#include "format/source.h"
#include "dump.h"
#include "dump_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "format/blocks.h"
#include "format/container.h"
#include "format/header.h"
#include "format/perfdata.h"
#include "format/record.h"


const char *const attr_sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
	"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
	"CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

const char *const attr_read_bits[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

/* Attr flag bits, in the order of struct perf_event_attr's bitfield. */
const char *const attr_flags[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat",
	"enable_on_exec", "task", "watermark", "precise_ip", "precise_ip2", "mmap_data",
	"sample_id_all", "exclude_host", "exclude_guest", "exclude_callchain_kernel",
	"exclude_callchain_user", "mmap2", "comm_exec", "use_clockid", "context_switch",
	"write_backward", "namespaces", "ksymbol", "bpf_event", "aux_output", "cgroup",
	"text_poke", "build_id", "inherit_thread", "remove_on_exec", "sigtrap",
};

static void print_bits(FILE *f, uint64_t v, const char *const *names, size_t n)
{
	bool first = true;

	for (size_t i = 0; i < 64; i++) {
		if (!(v & (1ull << i)))
			continue;
		if (i < n)
			fprintf(f, "%s%s", first ? "" : "|", names[i]);
		else
			fprintf(f, "%sbit%zu", first ? "" : "|", i);
		first = false;
	}
	if (first)
		fprintf(f, "0");
}

void dump__attr(FILE *f, const struct event_desc *ev)
{
	const struct perf_event_attr *a = &ev->attr;
	uint64_t flags;

	memcpy(&flags, (const uint8_t *)a + offsetof(struct perf_event_attr, read_format) + 8, 8);
	fprintf(f, "    attr: type %u, size %u, config %#" PRIx64 ", %s %" PRIu64 "\n", a->type,
		a->size, (uint64_t)a->config, a->freq ? "sample_freq" : "sample_period",
		(uint64_t)a->sample_period);
	fprintf(f, "    sample_type ");
	print_bits(f, a->sample_type, attr_sample_bits, ATTR_SAMPLE_BITS);
	fprintf(f, ", read_format ");
	print_bits(f, a->read_format, attr_read_bits, ATTR_READ_BITS);
	fprintf(f, "\n    flags ");
	print_bits(f, flags, attr_flags, ATTR_FLAGS);
	fprintf(f, "\n");
	if (a->sample_regs_user || a->sample_stack_user)
		fprintf(f, "    sample_regs_user %#" PRIx64 ", sample_stack_user %u\n",
			(uint64_t)a->sample_regs_user, a->sample_stack_user);
	if (a->use_clockid)
		fprintf(f, "    clockid %d\n", a->clockid);
	if (a->wakeup_events)
		fprintf(f, "    wakeup_%s %u\n", a->watermark ? "watermark" : "events",
			a->wakeup_events);
}

static void dump_event(struct dump *d, const struct container_block *b)
{
	struct event_desc ev;
	struct event_layout l;
	struct err err = { 0 };
	uint64_t *ids;

	if (event_block_decode(b->data, b->len, &ev, &err)) {
		fprintf(d->out, "  (undecodable: %s)\n", err.msg);
		return;
	}
	fprintf(d->out, "  event %zu: '%s', %zu ids\n", d->nr_events++, ev.name, ev.nr_ids);
	dump__attr(d->out, &ev);
	for (size_t i = 0; i < ev.nr_ids; i++)
		fprintf(d->out, "    id %" PRIu64 " cpu %d tid %d\n", ev.ids[i].id, ev.ids[i].cpu,
			ev.ids[i].tid);
	event_layout_from_attr(&l, ev.attr_bytes, ev.attr_size);
	ids = calloc(ev.nr_ids + 1, sizeof(*ids));
	for (size_t i = 0; ids && i < ev.nr_ids; i++)
		ids[i] = ev.ids[i].id;
	if (!ids || record_layouts_add(d->layouts, &l, ids, ev.nr_ids, &err) < 0)
		log_msg(LOG_WARNING, "%s: event '%s': %s", d->path, ev.name,
			ids ? err.msg : "out of memory");
	free(ids);
	event_desc_free(&ev);
}

static void dump_meta(struct dump *d, const struct container_block *b)
{
	struct cursor c = cur_make(b->data, b->len);
	struct meta_entry e;

	while (meta_next(&c, &e, NULL) == 1) {
		const struct meta_field *mf = meta_field_find(e.tag);

		if (mf)
			fprintf(d->out, "  %s: ", mf->name);
		else
			fprintf(d->out, "  tag %u: ", e.tag);
		if (e.kind == META_U64) {
			uint64_t v = 0;

			for (int i = 0; i < 8; i++)
				v |= (uint64_t)e.value[i] << (8 * i);
			if (e.tag == META_PERF_EVENT_PARANOID)
				fprintf(d->out, "%" PRId64 "\n", (int64_t)v);
			else
				fprintf(d->out, "%" PRIu64 "\n", v);
		} else if (e.kind == META_STRING || e.kind == META_STRLIST) {
			for (uint32_t i = 0; i < e.len; i++) {
				uint8_t ch = e.value[i];

				if (!ch)
					fputc(' ', d->out);
				else if (ch < 0x20 || ch == 0x7f)
					fprintf(d->out, "\\x%02x", ch);
				else
					fputc(ch, d->out);
			}
			fputc('\n', d->out);
		} else {
			for (uint32_t i = 0; i < e.len; i++)
				fprintf(d->out, "%02x", e.value[i]);
			fputc('\n', d->out);
		}
	}
}

static void print_sample_id(FILE *f, const struct sample_id *s)
{
	if (s->fields & PERF_SAMPLE_TID)
		fprintf(f, " pid %u tid %u", s->pid, s->tid);
	if (s->fields & PERF_SAMPLE_TIME)
		fprintf(f, " time %" PRIu64, s->time);
	if (s->fields & PERF_SAMPLE_CPU)
		fprintf(f, " cpu %u", s->cpu);
	if (s->fields & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		fprintf(f, " id %" PRIu64, s->fields & PERF_SAMPLE_IDENTIFIER ? s->identifier : s->id);
}

static void print_sample(FILE *f, const struct sample *s)
{
	uint64_t t = s->type;

	if (t & PERF_SAMPLE_IDENTIFIER)
		fprintf(f, " id %" PRIu64, s->identifier);
	if (t & PERF_SAMPLE_IP)
		fprintf(f, " ip %#" PRIx64, s->ip);
	if (t & PERF_SAMPLE_TID)
		fprintf(f, " pid %u tid %u", s->pid, s->tid);
	if (t & PERF_SAMPLE_TIME)
		fprintf(f, " time %" PRIu64, s->time);
	if (t & PERF_SAMPLE_ADDR)
		fprintf(f, " addr %#" PRIx64, s->addr);
	if (t & PERF_SAMPLE_CPU)
		fprintf(f, " cpu %u", s->cpu);
	if (t & PERF_SAMPLE_PERIOD)
		fprintf(f, " period %" PRIu64, s->period);
	if (t & PERF_SAMPLE_READ)
		fprintf(f, " read[%" PRIu64 "]", s->read.nr);
	if (t & PERF_SAMPLE_RAW)
		fprintf(f, " raw %u bytes", s->raw_size);
	if (t & PERF_SAMPLE_BRANCH_STACK)
		fprintf(f, " branches %" PRIu64, s->branch_nr);
	if (t & PERF_SAMPLE_REGS_USER)
		fprintf(f, " regs_user abi %" PRIu64 " (%u regs)", s->regs_user.abi, s->regs_user.nr);
	if (t & PERF_SAMPLE_STACK_USER)
		fprintf(f, " stack %" PRIu64 " bytes (dyn %" PRIu64 ")", s->stack_size,
			s->stack_dyn_size);
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		fprintf(f, " weight %" PRIu64, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		fprintf(f, " data_src %#" PRIx64, s->data_src);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		fprintf(f, " phys_addr %#" PRIx64, s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		fprintf(f, " cgroup %" PRIu64, s->cgroup);
	fputc('\n', f);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		fprintf(f, "        callchain %" PRIu64 ":", s->callchain_nr);
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			fprintf(f, " %#" PRIx64, u64_at(s->callchain, i));
		fputc('\n', f);
	}
}

static void print_body(FILE *f, const struct record *r)
{
	const char *name = record_type_name(r->type);

	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		print_sample(f, &r->u.sample);
		return;
	case PERF_RECORD_MMAP:
		fprintf(f, " %u/%u [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]: %s", r->u.mmap.pid,
			r->u.mmap.tid, r->u.mmap.addr, r->u.mmap.len, r->u.mmap.pgoff,
			r->u.mmap.filename);
		break;
	case PERF_RECORD_MMAP2:
		fprintf(f, " %u/%u [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 " prot %u flags %u]: %s",
			r->u.mmap2.pid, r->u.mmap2.tid, r->u.mmap2.addr, r->u.mmap2.len,
			r->u.mmap2.pgoff, r->u.mmap2.prot, r->u.mmap2.flags, r->u.mmap2.filename);
		if (r->u.mmap2.has_build_id) {
			fprintf(f, " build_id ");
			for (unsigned i = 0; i < r->u.mmap2.build_id_size; i++)
				fprintf(f, "%02x", r->u.mmap2.build_id[i]);
		}
		break;
	case PERF_RECORD_COMM:
		fprintf(f, " %u/%u: %s%s", r->u.comm.pid, r->u.comm.tid, r->u.comm.comm,
			r->misc & PERF_RECORD_MISC_COMM_EXEC ? " (exec)" : "");
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fprintf(f, " %u/%u from %u/%u", r->u.task.pid, r->u.task.tid, r->u.task.ppid,
			r->u.task.ptid);
		break;
	case PERF_RECORD_LOST:
		fprintf(f, " id %" PRIu64 " lost %" PRIu64, r->u.lost.id, r->u.lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		fprintf(f, " lost %" PRIu64, r->u.lost_samples.lost);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		fprintf(f, " time %" PRIu64 " id %" PRIu64, r->u.throttle.time, r->u.throttle.id);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		fprintf(f, " %s", r->misc & PERF_RECORD_MISC_SWITCH_OUT ? "out" : "in");
		if (r->type == PERF_RECORD_SWITCH_CPU_WIDE)
			fprintf(f, " %s %u/%u", r->misc & PERF_RECORD_MISC_SWITCH_OUT ? "next" : "prev",
				r->u.switch_cpu_wide.next_prev_pid, r->u.switch_cpu_wide.next_prev_tid);
		break;
	case PERF_RECORD_KSYMBOL:
		fprintf(f, " %#" PRIx64 " len %u type %u: %s", r->u.ksymbol.addr, r->u.ksymbol.len,
			r->u.ksymbol.ksym_type, r->u.ksymbol.name);
		break;
	case PERF_RECORD_CGROUP:
		fprintf(f, " id %" PRIu64 ": %s", r->u.cgroup.id, r->u.cgroup.path);
		break;
	default:
		if (!name)
			fprintf(f, " (type %u not decoded)", r->type);
		break;
	}
	print_sample_id(f, &r->sid);
	fputc('\n', f);
}

void dump__records(struct dump *d, const uint8_t *p, uint64_t len, uint64_t base)
{
	size_t off = 0, rec_len;
	struct err err = { 0 };
	int ret;

	while ((ret = record_next(p, len, off, &rec_len, &err)) == 1) {
		struct record r;
		const char *name;

		d->records++;
		fprintf(d->out, "%s%s%" PRIu64 " size %zu ", d->indent ? d->indent : "      ",
			d->relative ? "+" : "@", base + off, rec_len);
		if (record_decode(d->layouts, p + off, rec_len, &r, &err)) {
			fprintf(d->out, "UNDECODABLE: %s\n", err.msg);
			d->bad_records++;
		} else {
			name = record_type_name(r.type);
			if (r.type < PERF_RECORD_MAX)
				d->by_type[r.type]++;
			else
				d->unknown_records++;
			if (name)
				fprintf(d->out, "%s", name);
			else
				fprintf(d->out, "type %u", r.type);
			if (r.event >= 0 && d->nr_events > 1)
				fprintf(d->out, " [event %d]", r.event);
			print_body(d->out, &r);
		}
		off += rec_len;
	}
}

static void dump_data(struct dump *d, const struct container_block *b)
{
	struct data_iter it;
	struct data_span s;

	if (data_iter_init(&it, b->data, b->len, NULL))
		return;
	fprintf(d->out, "  %u records in %u spans, time %" PRIu64 "..%" PRIu64 "\n",
		it.h.nr_records, it.h.nr_spans, it.h.time_min, it.h.time_max);
	while (data_iter_next(&it, &s, NULL) == 1) {
		if (s.kind == SPAN_ROUND_END) {
			fprintf(d->out, "    round end\n");
			continue;
		}
		if (s.cpu == SPAN_CPU_SYNTH)
			fprintf(d->out, "    span synthesized, %" PRIu64 " bytes\n", s.len);
		else
			fprintf(d->out, "    span cpu %u, %" PRIu64 " bytes\n", s.cpu, s.len);
		dump__records(d, s.records, s.len, (uint64_t)(s.records - b->data));
	}
}

static void dump_build_ids(struct dump *d, const struct container_block *b)
{
	struct build_id_entry *e;
	size_t n;

	if (build_ids_decode(b->data, b->len, &e, &n, NULL))
		return;
	for (size_t i = 0; i < n; i++) {
		fprintf(d->out, "  ");
		for (unsigned k = 0; k < e[i].size; k++)
			fprintf(d->out, "%02x", e[i].id[k]);
		fprintf(d->out, " %s%s\n", e[i].path, e[i].flags & BUILD_ID_FLAG_KERNEL ? " [kernel]" : "");
	}
	build_ids_free(e, n);
}

static void dump_counts(struct dump *d, const struct container_block *b)
{
	struct count_reading *r;
	size_t n;

	if (counts_decode(b->data, b->len, &r, &n, NULL))
		return;
	for (size_t i = 0; i < n; i++)
		fprintf(d->out, "  event %u cpu %d tid %d%s time %" PRIu64 ": %" PRIu64
			" (enabled %" PRIu64 ", running %" PRIu64 ")\n", r[i].event, r[i].cpu, r[i].tid,
			r[i].flags & COUNT_FLAG_FINAL ? " final" : r[i].flags & COUNT_FLAG_INTERVAL ?
			" interval" : "", r[i].time_ns, r[i].value, r[i].time_enabled,
			r[i].time_running);
	free(r);
}

static void dump_index(struct dump *d, const struct container_block *b)
{
	struct index_entry *e;
	size_t n;

	if (index_decode(b->data, b->len, &e, &n, NULL))
		return;
	fprintf(d->out, "  %zu entries\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(d->out, "    block %u @%" PRIu64 " %s time %" PRIu64 "..%" PRIu64 "\n", e[i].seq,
			e[i].offset, block_type_name(e[i].type) ? block_type_name(e[i].type) : "?",
			e[i].time_min, e[i].time_max);
	free(e);
}

struct kallsyms_span {
	size_t nr, modules;
	uint64_t lo, hi;
};

static int kallsyms_count(void *ctx, const struct kallsym *s)
{
	struct kallsyms_span *k = ctx;

	if (!k->nr++ || s->addr < k->lo)
		k->lo = s->addr;
	if (s->addr > k->hi)
		k->hi = s->addr;
	k->modules += s->module_len != 0;
	return 0;
}

static void dump_kallsyms(struct dump *d, const struct container_block *b)
{
	struct kallsyms_span k = { 0 };
	size_t n;

	if (kallsyms_walk(b->data, b->len, kallsyms_count, &k, &n, NULL))
		return;
	fprintf(d->out, "  %zu kernel symbols (%zu in modules), %#" PRIx64 "..%#" PRIx64 "\n",
		n, k.modules, k.lo, k.hi);
}

static void dump_symbols(struct dump *d, const struct container_block *b)
{
	struct embed_dso *e;
	char id[2 * EMBED_BUILD_ID_MAX + 1];

	if (embed_decode(b->data, b->len, &e, NULL))
		return;
	for (size_t i = 0; i < e->build_id_size; i++)
		snprintf(id + 2 * i, 3, "%02x", e->build_id[i]);
	fprintf(d->out, "  %s %s\n  %u segments, %u symbols, %u addresses, %u frames, "
		"%u byte ranges (code and unwind tables, %u bytes; .eh_frame_hdr %#" PRIx64 ", %" PRIu64 " entries)\n",
		id, embed_str(e, e->path), e->nr_segs, e->nr_syms, e->nr_addrs, e->nr_frames,
		e->nr_ranges, e->bytes_len, e->eh_frame_hdr, e->fde_count);
	for (uint32_t i = 0; i < e->nr_ranges; i++)
		fprintf(d->out, "    bytes %#" PRIx64 " +%u crc32 %08x\n", e->ranges[i].vaddr,
			e->ranges[i].len, crc32_of(e->bytes + e->ranges[i].data, e->ranges[i].len));
	embed_free(e);
}

static void on_problem(void *ctx, const struct container_problem *p)
{
	const struct dump *d = ctx;

	log_msg(LOG_WARNING, "%s: %s", d->path, p->msg);
}

static void dump_end(struct dump *d, const struct container_block *b)
{
	(void)b;
	fprintf(d->out, "  end of the stream\n");
}

static void dump_source(struct dump *d, const struct container_block *b)
{
	struct source_block *s;

	if (source_decode(b->data, b->len, &s, NULL))
		return;
	fprintf(d->out, "  %u files, %u lines\n", s->nr_files, s->nr_lines);
	for (uint32_t i = 0; i < s->nr_files; i++) {
		const struct source_file *f = &s->files[i];

		fprintf(d->out, "    %s: %u lines", s->strings + f->path, f->nr);
		if (f->nr)
			fprintf(d->out, ", %u..%u", s->lines[f->first].line,
				s->lines[f->first + f->nr - 1].line);
		fputc('\n', d->out);
		for (uint32_t j = f->first; j < f->first + f->nr; j++)
			fprintf(d->out, "      %u: %s\n", s->lines[j].line, s->strings + s->lines[j].text);
	}
	source_free(s);
}

static void dump_addr_counts(struct dump *d, const struct container_block *b)
{
	struct addrcounts *c;

	if (addrcounts_decode(b->data, b->len, &c, NULL))
		return;
	fprintf(d->out, "  counted from bytes 64..%" PRIu64 " (crc32 %08x): %u binaries, %u events, "
		"%u addresses\n", c->covered_end, c->covered_crc, c->nr_dsos, c->nr_events,
		c->nr_entries);
	for (uint32_t i = 0; i < c->nr_dsos; i++) {
		char id[2 * 64 + 1] = "";

		for (size_t k = 0; k < c->dsos[i].build_id_size; k++)
			snprintf(id + 2 * k, 3, "%02x", c->dsos[i].build_id[k]);
		fprintf(d->out, "    binary %u %s %s\n", i, c->strings + c->dsos[i].path,
			*id ? id : "-");
	}
	for (uint32_t i = 0; i < c->nr_events; i++)
		fprintf(d->out, "    event %u: %" PRIu64 " samples, period %" PRIu64 "\n", i,
			c->events[i].samples, c->events[i].period);
	for (uint32_t i = 0; i < c->nr_entries; i++) {
		const struct addrcounts_entry *e = &c->entries[i];

		fprintf(d->out, "    %#" PRIx64 " %s%s event %u: %" PRIu64 " samples, period %" PRIu64
			"\n", e->addr, e->flags & ADDRCOUNTS_KERNEL ? "[k] " : "",
			e->dso == ADDRCOUNTS_NONE ? "-" : c->strings + c->dsos[e->dso].path, e->event,
			e->samples, e->period);
	}
	addrcounts_free(c);
}

static void dump_sample_sums(struct dump *d, const struct container_block *b)
{
	struct samplesums ss;

	if (samplesums_decode(b->data, b->len, &ss, NULL))
		return;
	fprintf(d->out, "  summed from bytes 64..%" PRIu64 " (crc32 %08x): %u events, %" PRIu64
		" samples (time %" PRIu64 "..%" PRIu64 "), %zu records\n", ss.covered_end,
		ss.covered_crc, ss.nr_events, ss.samples, ss.tmin, ss.tmax, ss.nr_items);
	for (size_t i = 0; i < ss.nr_items; i++) {
		const struct samplesums_item *it = &ss.items[i];
		const char *name;
		uint32_t type;

		memcpy(&type, it->rec, 4);      /* the records' byte order is the host's */
		name = record_type_name(type);
		if (it->sum)
			fprintf(d->out, "    sum: %" PRIu64 " samples, period %" PRIu64 " (%u bytes)\n",
				it->count, it->period, it->len);
		else
			fprintf(d->out, "    kept: %s (%u bytes)\n", name ? name : "?", it->len);
	}
	samplesums_free(&ss);
}

int dump_file(const char *path, FILE *out, struct err *err)
{
	static void (*const dumpers[BLOCK_TYPE_MAX])(struct dump *, const struct container_block *) = {
		[BLOCK_METADATA] = dump_meta,
		[BLOCK_EVENT] = dump_event,
		[BLOCK_DATA] = dump_data,
		[BLOCK_BUILD_IDS] = dump_build_ids,
		[BLOCK_COUNTS] = dump_counts,
		[BLOCK_INDEX] = dump_index,
		[BLOCK_KALLSYMS] = dump_kallsyms,
		[BLOCK_SYMBOLS] = dump_symbols,
		[BLOCK_END] = dump_end,
		[BLOCK_SOURCE] = dump_source,
		[BLOCK_ADDR_COUNTS] = dump_addr_counts,
		[BLOCK_SAMPLE_SUMS] = dump_sample_sums,
	};
	struct dump d = { .out = out, .path = path };
	struct container_reader_opts o = { .warn = on_problem, .ctx = &d };
	const struct container_header *h;
	const struct container_stats *st;
	struct container_reader *r;
	struct container_block b;
	const void *data = NULL;
	size_t len = 0;
	int ret;

	if (input_is_stdin(path) && (ret = input_stdin(&data, &len, err)))
		return ret;
	if (data ? perfdata_magic(data, len) : perfdata_probe(path) == 1)
		return dump_perfdata(path, out, err);
	d.layouts = record_layouts_new();
	if (!d.layouts)
		return err_set(err, -ENOMEM, "out of memory");
	ret = data ? container_reader_open_mem(&r, data, len, &o, err) :
		     container_reader_open(&r, path, &o, err);
	if (ret) {
		record_layouts_free(d.layouts);
		return ret;
	}
	h = container_reader_header(r);
	fprintf(out, "# %s: prec.data version %u.%u, %s, %" PRIu64 " bytes\n", path,
		h->version_major, h->version_minor,
		h->kind == CONTAINER_KIND_COUNTS ? "counts" : "samples", container_reader_size(r));
	while ((ret = container_reader_next(r, &b, err)) == 1) {
		fprintf(out, "block %u @%" PRIu64 ": %s, %s %zu bytes\n", b.seq, b.offset,
			block_type_name(b.type), b.codec == CODEC_ZLIB ? "zlib," : "stored,", b.len);
		dumpers[b.type](&d, &b);
	}
	st = container_reader_stats(r);
	fprintf(out, "# %" PRIu64 " blocks, %" PRIu64 " records (%" PRIu64 " samples, %" PRIu64
		" undecodable, %" PRIu64 " of unknown types); %" PRIu64 " corrupt blocks, %" PRIu64
		" skipped blocks, %" PRIu64 " bytes skipped, %" PRIu64 " bytes ignored%s\n",
		st->blocks, d.records, d.by_type[PERF_RECORD_SAMPLE], d.bad_records,
		d.unknown_records, st->corrupt_blocks, st->skipped_blocks, st->bytes_skipped,
		st->bytes_ignored, st->finished ? "" : "; recording did not finish");
	container_reader_close(r);
	record_layouts_free(d.layouts);
	return ret;
}
