/* SPDX-License-Identifier: MIT */
/*
 * prep script: one line per sample as perf script prints it (comm, tid,
 * cpu, time, period, event, ip sym+off (dso), the call chain indented
 * beneath), fields chosen with -F, and side-band records on request.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/cursor.h"
#include "common/opts.h"
#include "dump.h"
#include "report/aggregate/daddr.h"
#include "report/core/load.h"
#include "outbuf.h"
#include "report.h"
#include "script_int.h"

static const struct { const char *name; unsigned bit; } field_names[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID }, { "cpu", SF_CPU },
	{ "time", SF_TIME }, { "period", SF_PERIOD }, { "event", SF_EVENT }, { "ip", SF_IP },
	{ "sym", SF_SYM }, { "symoff", SF_SYMOFF }, { "dso", SF_DSO }, { "srcline", SF_SRCLINE },
	{ "addr", SF_ADDR }, { "weight", SF_WEIGHT }, { "uregs", SF_UREGS }, { "iregs", SF_IREGS },
};

static int parse_fields(const char *list, unsigned *out, struct err *err)
{
	char buf[512];
	char *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return err_set(err, -EINVAL, "-F: list too long");
	snprintf(buf, sizeof(buf), "%s", list);
	*out = 0;
	for (char *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
			if (!strcmp(f, field_names[i].name))
				break;
		if (i == sizeof(field_names) / sizeof(field_names[0]))
			return err_set(err, -EINVAL, "-F: unknown field '%s' (known: comm, tid, pid, cpu, "
				       "time, period, event, ip, sym, symoff, dso, srcline, addr, weight, uregs, "
				       "iregs)", f);
		*out |= field_names[i].bit;
	}
	return 0;
}

char *script_put_time(const struct script *sc, char *p, uint64_t t)
{
	p = ob_put_dec(p, t / UINT64_C(1000000000), 5, ' ');
	*p++ = '.';
	if (sc->ns)
		p = ob_put_fixed(p, t % UINT64_C(1000000000), 9);
	else
		p = ob_put_fixed(p, (t % UINT64_C(1000000000)) / 1000, 6);
	*p++ = ':';
	*p++ = ' ';
	return p;
}

void script_time(struct script *sc, uint64_t t)
{
	char *p = ob_room(sc->out, SCRIPT_TIME_MAX);

	sc->t0 = sc->out->n;
	ob_wrote(sc->out, script_put_time(sc, p, t));
	sc->t1 = sc->out->n;
}

/* comm_width: perf pads the command to 16 unless a call chain follows */
static void print_start(struct script *sc, const char *comm, int comm_width, uint32_t pid,
			uint32_t tid, uint32_t cpu, uint64_t time)
{
	struct obuf *o = sc->out;

	if (sc->fields & SF_COMM) {
		for (int i = (int)strlen(comm); i < comm_width; i++)
			ob_chr(o, ' ');
		ob_str(o, comm);
		ob_chr(o, ' ');
	}
	if ((sc->fields & SF_PID) && (sc->fields & SF_TID)) {
		ob_printf(o, "%5d/%-5d ", (int32_t)pid, (int32_t)tid);
	} else if (sc->fields & (SF_TID | SF_PID)) {
		ob_printf(o, "%5d ", (int32_t)((sc->fields & SF_TID) ? tid : pid));
	}
	if (sc->fields & SF_CPU) {
		ob_chr(o, '[');
		ob_dec(o, cpu, 3, '0', false);
		ob_mem(o, "] ", 2);
	}
	if (sc->fields & SF_TIME)
		script_time(sc, time);
}

/* "addr sym+off (dso)" of one address: the address as in the dso, or as
 * sampled (raw: perf's way for a sample without call chain). */
static void print_addr(struct script *sc, const struct thread *t, uint64_t addr, bool kernel,
		       bool raw)
{
	struct load *l = sc->l;
	struct symbolizer *sym = load_symbolizer(l);
	const struct map *m = machine_find_map(load_machine(l), t, addr, kernel);
	struct sym_info si = { 0 };
	const char *dso = "[unknown]", *module = NULL;
	uint64_t shown = addr;

	if (kernel) {
		symbolizer_kernel_lookup_table(sym, sc->ktab, addr, &si, &module);
		dso = "[kernel.kallsyms]";
	} else if (m && m->dso) {
		struct dso *d = m->dso;

		if (!d->anon)
			dso_sym(sym, load_options(l)->symfs, d);
		if (d->sym)
			sym_dso_lookup(sym, d->sym, addr - m->start + m->pgoff, &si);
		dso = d->path;
		/* perf shows the offset in the file (its map_ip), which is the
		 * ELF address only where the two agree; the address as is in
		 * the maps it calls anonymous */
		if (!d->identity)
			shown = addr - m->start + m->pgoff;
	}
	if (sc->fields & SF_IP)
		ob_hex(sc->out, raw ? addr : shown, 16);
	if (sc->fields & (SF_SYM | SF_SYMOFF)) {
		ob_chr(sc->out, ' ');
		ob_str(sc->out, si.name ? si.name : "[unknown]");
		if (si.name && (sc->fields & SF_SYMOFF)) {
			ob_mem(sc->out, "+0x", 3);
			ob_hex(sc->out, si.addr - si.start, 0);
		}
	}
	if (sc->fields & SF_DSO) {
		ob_mem(sc->out, " (", 2);
		if (module) {
			ob_chr(sc->out, '[');
			ob_str(sc->out, module);
			ob_chr(sc->out, ']');
		} else {
			ob_str(sc->out, dso);
		}
		ob_chr(sc->out, ')');
	}
	if ((sc->fields & SF_SRCLINE) && m && m->dso && m->dso->sym && !kernel) {
		const struct sym_frame *fr;
		size_t n = 0;

		if (!sym_dso_srcline(sym, m->dso->sym, addr - m->start + m->pgoff, &fr, &n) && n &&
		    fr[0].file)
			ob_printf(sc->out, "\n  %s:%u", fr[0].file, fr[0].line);
	}
}

/* perf_regs.h's x86-64 registers by bit, as perf script names them */
static const char *const reg_names[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};

/* " ABI:2    AX:0x1    IP:0x401000 " as perf script prints a register set */
static void print_regs(struct script *sc, const struct sample_regs *r)
{
	unsigned k = 0;

	if (!r->nr)
		return;
	ob_printf(sc->out, " ABI:%" PRIu64 " ", r->abi);
	for (unsigned bit = 0; bit < 64 && k < r->nr; bit++) {
		char name[8];

		if (!(r->mask & (1ULL << bit)))
			continue;
		if (bit < sizeof(reg_names) / sizeof(reg_names[0]))
			snprintf(name, sizeof(name), "%s", reg_names[bit]);
		else
			snprintf(name, sizeof(name), "R%u", bit);
		ob_printf(sc->out, "%5s:0x%" PRIx64 " ", name, u64_at(r->regs, k++));
	}
}

/* -F iregs,uregs: after the sample's address, interrupt registers first */
static void script_regs(struct script *sc, const struct sample *smp)
{
	if ((sc->fields & SF_IREGS) && (smp->type & PERF_SAMPLE_REGS_INTR))
		print_regs(sc, &smp->regs_intr);
	if ((sc->fields & SF_UREGS) && (smp->type & PERF_SAMPLE_REGS_USER))
		print_regs(sc, &smp->regs_user);
}

/* -F addr: the data address, named (with sym) by the data symbol covering
 * it, else by the function there (an instruction fetch), else [unknown];
 * address 0 is not named */
static int print_daddr(struct script *sc, const struct load_sample *s, uint64_t addr)
{
	struct load *l = sc->l;
	struct daddr d;
	int ret = daddr_resolve(load_machine(l), load_symbolizer(l), load_options(l)->symfs,
				s->thread, addr, &d);

	if (ret)
		return ret;
	ob_hex(sc->out, addr, 16);
	/* 0: no data address (a timer event with -d): no name, as perf */
	if (!addr || !(sc->fields & (SF_SYM | SF_SYMOFF | SF_DSO)))
		return 0;
	if (!d.sym) {
		unsigned keep = sc->fields;

		/* the function and dso, as for an ip */
		sc->fields &= ~(unsigned)(SF_IP | SF_SRCLINE);
		print_addr(sc, s->thread, addr, false, true);
		sc->fields = keep;
		return 0;
	}
	if (sc->fields & (SF_SYM | SF_SYMOFF)) {
		ob_chr(sc->out, ' ');
		ob_str(sc->out, d.sym);
		if (sc->fields & SF_SYMOFF)
			ob_printf(sc->out, "+0x%" PRIx64, d.vaddr - d.sym_start);
	}
	if (sc->fields & SF_DSO)
		ob_printf(sc->out, " (%s)", d.dso->path);
	return 0;
}

/* -F addr, weight: between the event and the sample's address, as perf */
static int script_sample_extra(struct script *sc, const struct load_sample *s)
{
	const struct sample *smp = &s->rec->u.sample;

	if ((sc->fields & SF_ADDR) && (smp->type & PERF_SAMPLE_ADDR)) {
		int ret = print_daddr(sc, s, smp->addr);

		if (ret)
			return ret;
	}
	if ((sc->fields & SF_WEIGHT) && (smp->type & PERF_SAMPLE_WEIGHT_TYPE))
		ob_dec(sc->out, smp->weight, 16, ' ', false);
	return 0;
}

/* Once the events are known: their names' width, and the CPU in perf's
 * default fields when the samples have it. */
static void script_ready(struct script *sc, const struct load *l)
{
	if (sc->ready)
		return;
	sc->ready = true;
	for (size_t i = 0; i < load_nr_events(l); i++)
		if ((int)strlen(load_event_name(l, (int)i)) > sc->name_width)
			sc->name_width = (int)strlen(load_event_name(l, (int)i));
	for (size_t f = 0; sc->default_fields && f < load_nr_sessions(l); f++) {
		const struct session *s = load_session(l, f);

		for (size_t e = 0; e < s->nr_events; e++)
			if (s->events[e].attr.sample_type & PERF_SAMPLE_CPU)
				sc->fields |= SF_CPU;
	}
}

/* perf pads the command to 16 unless the event's call chain follows */
static int comm_width(const struct script *sc, const struct session *s, int event)
{
	if (event < 0 || (size_t)event >= s->nr_events)
		event = 0;
	if (!s->nr_events || !(sc->fields & SF_IP))
		return 16;
	return (s->events[event].attr.sample_type & PERF_SAMPLE_CALLCHAIN) ? 0 : 16;
}

static int print_sample(struct script *sc, struct load *l, const struct load_sample *s)
{
	const struct sample *smp = &s->rec->u.sample;
	bool has_chain = smp->type & PERF_SAMPLE_CALLCHAIN;
	bool chain = s->nr > 1 || (has_chain && smp->callchain_nr);
	const char *name = load_event_name(l, s->event);

	script_ready(sc, l);
	sc->ktab = s->kernel_table;
	print_start(sc, s->thread->comm, has_chain && (sc->fields & SF_IP) ? 0 : 16, smp->pid,
		    smp->tid, smp->cpu, smp->time);
	if (sc->fields & SF_PERIOD) {
		sc->p0 = sc->out->n;
		ob_dec(sc->out, s->period, 10, ' ', false);
		sc->p1 = sc->out->n;
		ob_chr(sc->out, ' ');
	}
	if (sc->fields & SF_EVENT) {
		for (int i = (int)strlen(name); i < sc->name_width; i++)
			ob_chr(sc->out, ' ');
		ob_str(sc->out, name);
		ob_mem(sc->out, ": ", 2);
	}
	if (script_sample_extra(sc, s))
		return -ENOMEM;
	if (!(sc->fields & (SF_IP | SF_SYM | SF_SYMOFF | SF_DSO))) {
		script_regs(sc, smp);
		ob_chr(sc->out, '\n');
		return 0;
	}
	if (!chain) {
		ob_chr(sc->out, ' ');
		print_addr(sc, s->thread, s->addrs[0], s->kernel[0], true);
		script_regs(sc, smp);
		ob_chr(sc->out, '\n');
		return 0;
	}
	script_regs(sc, smp);
	ob_chr(sc->out, '\n');
	for (size_t i = 0; i < s->nr; i++) {
		ob_chr(sc->out, '\t');
		print_addr(sc, s->thread, s->addrs[i], s->kernel[i], false);
		ob_chr(sc->out, '\n');
	}
	ob_chr(sc->out, '\n');
	return 0;
}

static int on_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	struct script *sc = ctx;
	struct script_mark m;
	int ret;

	script_memo_begin(sc, s, &m);
	ret = print_sample(sc, l, s);
	if (!ret)
		script_memo_end(sc, s, &m);
	return ret;
}

static int on_side(void *ctx, struct load *l, struct session *s, const struct record *rec)
{
	struct script *sc = ctx;
	const struct thread *t;
	uint32_t pid = rec->sid.pid, tid = rec->sid.tid;

	switch (rec->type) {
	case PERF_RECORD_COMM: case PERF_RECORD_FORK: case PERF_RECORD_EXIT:
		if (!sc->task)
			return 0;
		break;
	case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2:
		if (!sc->mmap)
			return 0;
		break;
	case PERF_RECORD_SWITCH: case PERF_RECORD_SWITCH_CPU_WIDE:
		if (!sc->sw)
			return 0;
		break;
	default:
		return 0;
	}
	/* the command of the thread the record is about; the numbers, time and
	 * CPU of its sample_id trailer, as perf prints them */
	if (rec->type == PERF_RECORD_COMM)
		pid = rec->u.comm.pid, tid = rec->u.comm.tid;
	else if (rec->type == PERF_RECORD_FORK || rec->type == PERF_RECORD_EXIT)
		pid = rec->u.task.pid, tid = rec->u.task.tid;
	else if (rec->type == PERF_RECORD_MMAP)
		pid = rec->u.mmap.pid, tid = rec->u.mmap.tid;
	else if (rec->type == PERF_RECORD_MMAP2)
		pid = rec->u.mmap2.pid, tid = rec->u.mmap2.tid;
	script_ready(sc, l);
	t = machine_thread(load_machine(l), pid, tid);
	if (rec->sid.fields & PERF_SAMPLE_TID)
		pid = rec->sid.pid, tid = rec->sid.tid;
	print_start(sc, t ? t->comm : ":-1", comm_width(sc, s, rec->event), pid, tid,
		    (rec->sid.fields & PERF_SAMPLE_CPU) ? rec->sid.cpu : 0,
		    (rec->sid.fields & PERF_SAMPLE_TIME) ? rec->sid.time : 0);
	ob_printf(sc->out, "PERF_RECORD_%s", record_type_name(rec->type));
	switch (rec->type) {
	case PERF_RECORD_COMM:
		ob_printf(sc->out, "%s: %s:%d/%d\n", (rec->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
			rec->u.comm.comm, (int32_t)rec->u.comm.pid, (int32_t)rec->u.comm.tid);
		break;
	case PERF_RECORD_FORK: case PERF_RECORD_EXIT:
		ob_printf(sc->out, "(%d:%d):(%d:%d)\n", (int32_t)rec->u.task.pid,
			  (int32_t)rec->u.task.tid, (int32_t)rec->u.task.ppid,
			  (int32_t)rec->u.task.ptid);
		break;
	case PERF_RECORD_MMAP:
		ob_printf(sc->out, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]: %c %s\n",
			(int32_t)rec->u.mmap.pid, (int32_t)rec->u.mmap.tid, rec->u.mmap.addr,
			rec->u.mmap.len, rec->u.mmap.pgoff,
			(rec->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x', rec->u.mmap.filename);
		break;
	case PERF_RECORD_MMAP2: {
		const typeof(rec->u.mmap2) *m = &rec->u.mmap2;

		ob_printf(sc->out, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int32_t)m->pid,
			  (int32_t)m->tid, m->addr, m->len, m->pgoff);
		if (m->has_build_id) {
			ob_str(sc->out, " <");
			for (unsigned i = 0; i < m->build_id_size; i++)
				ob_printf(sc->out, "%02x", m->build_id[i]);
			ob_chr(sc->out, '>');
		} else {
			ob_printf(sc->out, " %02x:%02x %" PRIu64 " %" PRIu64, m->maj, m->min, m->ino,
				  m->ino_generation);
		}
		ob_printf(sc->out, "]: %c%c%c%c %s\n", (m->prot & PROT_READ) ? 'r' : '-',
			  (m->prot & PROT_WRITE) ? 'w' : '-', (m->prot & PROT_EXEC) ? 'x' : '-',
			  (m->flags & MAP_SHARED) ? 's' : 'p', m->filename);
		break;
	}
	default:
		ob_printf(sc->out, " %s\n", (rec->misc & PERF_RECORD_MISC_SWITCH_OUT) ?
			((rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? "OUT preempt" : "OUT") : "IN ");
		break;
	}
	return 0;
}

/* Read the inputs of lo, printing as the records come. 0, or 1 with the
 * message printed. */
static int script_run(struct script *sc, const struct load_opts *lo)
{
	static const struct load_memo_ops ops = { script_memo_again };
	struct err err = { 0 };
	struct load *l = load_new(lo, &err);
	int ret;

	if (!l) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	sc->l = l;
	sc->out->f = stdout;
	/* a sample like one printed before: its text again (script_memo.c) */
	ret = script_memo_init(sc) ? load_run(l, on_sample, on_side, sc, &err) :
				      load_run_memo(l, on_sample, on_side, &ops, sc, &err);
	ob_flush(sc->out);
	script_memo_free(sc);
	if (ret)
		fprintf(stderr, "prep: %s\n", err.msg);
	load_free(l);
	return ret ? 1 : 0;
}

static const char usage_line[] = "prep script [-i FILE] [-F FIELDS] [--ns] [options]";

int cmd_script(int argc, char **argv)
{
	struct load_opts lo = { 0 };
	static struct obuf ob;
	struct script sc = { .out = &ob };
	const char *fields = NULL;
	bool help = false, dump = false;
	int quiet = 0;
	const struct opt table[] = {
		LOAD_OPT_INPUT(&lo),
		OPTION_STRING('F', "fields", &fields, "list", "comm,tid,pid,cpu,time,period,event,ip,sym,symoff,dso,srcline,addr,weight,uregs,iregs"),
		OPTION_FLAG(0, "ns", &sc.ns, "times in nanoseconds"),
		OPTION_FLAG('D', "dump-raw-trace", &dump, "every block and record, decoded"),
		OPTION_FLAG(0, "show-task-events", &sc.task, "COMM, FORK and EXIT records too"),
		OPTION_FLAG(0, "show-mmap-events", &sc.mmap, "MMAP and MMAP2 records too"),
		OPTION_FLAG(0, "show-switch-events", &sc.sw, "context switch records too"),
		LOAD_SYMBOL_OPTIONS(&lo),
		LOAD_SAMPLE_FILTER_OPTIONS(&lo),
		OPTION_COUNT('q', "quiet", &quiet, "no warnings"),
		OPTION_FLAG('h', "help", &help, "show this help"),
		OPTION_END,
	};
	struct err err = { 0 };
	int ret;

	ret = opts_parse_command(table, argc, argv, "prep", usage_line, &help);
	if (ret >= 0)
		return ret;
	load_opts_default_input(&lo);
	if (dump) {
		if (dump_file(lo.inputs[0], stdout, &err)) {
			fprintf(stderr, "prep: %s\n", err.msg);
			return 1;
		}
		return 0;
	}
	sc.fields = SF_COMM | SF_TID | SF_TIME | SF_PERIOD | SF_EVENT | SF_IP | SF_SYMOFF | SF_DSO;
	sc.default_fields = !fields;
	if (fields && parse_fields(fields, &sc.fields, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 129;
	}
	lo.quiet = quiet > 0;
	return script_run(&sc, &lo);
}
