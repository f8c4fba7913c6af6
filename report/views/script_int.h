/* SPDX-License-Identifier: MIT */
/* Inside prep script (script.c, script_memo.c). Not for other views. */
#ifndef PREC_REPORT_SCRIPT_INT_H
#define PREC_REPORT_SCRIPT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outbuf.h"
#include "report/core/load.h"

enum sfield {
	SF_COMM = 1 << 0, SF_TID = 1 << 1, SF_PID = 1 << 2, SF_CPU = 1 << 3, SF_TIME = 1 << 4,
	SF_PERIOD = 1 << 5, SF_EVENT = 1 << 6, SF_IP = 1 << 7, SF_SYM = 1 << 8,
	SF_SYMOFF = 1 << 9, SF_DSO = 1 << 10, SF_SRCLINE = 1 << 11,
	SF_ADDR = 1 << 12, SF_WEIGHT = 1 << 13, SF_UREGS = 1 << 14, SF_IREGS = 1 << 15,
};

struct script {
	struct obuf *out;
	unsigned fields;
	bool ns, task, mmap, sw;
	bool multi_cpu;
	int name_width;         /* the longest event name, as perf pads them */
	bool ready;
	bool default_fields;    /* no -F */
	struct load *l;
	unsigned ktab;          /* the sample's kernel symbols (symbolizer table) */
	/* where the time and the period of the sample being printed went in
	 * out (script_memo.c) */
	size_t t0, t1, p0, p1;
	struct script_tmpl *tmpl;       /* LOAD_MEMO_SLOTS of them, or NULL */
};

/* The sample's time as perf script prints it ("  1234.567890: "), where
 * it goes in out kept in t0, t1; _put_time writes it at p (room for
 * SCRIPT_TIME_MAX bytes) and returns its end. */
#define SCRIPT_TIME_MAX 40
void script_time(struct script *sc, uint64_t t);
char *script_put_time(const struct script *sc, char *p, uint64_t t);

/*
 * A sample like one printed before prints the same text but for its time
 * and period (load_run_memo): script_memo.c keeps each memo slot's text,
 * the two fields cut out, and prints it again around the new ones.
 * _begin before a sample is printed, _end after (it keeps the text when
 * the memo may take samples like it); again is the memo's.
 */
struct script_mark {
	int slot;               /* -1: nothing to keep */
	size_t start;
	unsigned flushes;
};
int script_memo_init(struct script *sc);
void script_memo_free(struct script *sc);
void script_memo_begin(struct script *sc, const struct load_sample *s, struct script_mark *m);
void script_memo_end(struct script *sc, const struct load_sample *s, const struct script_mark *m);
int script_memo_again(void *ctx, uint32_t slot, uint64_t time, uint64_t period);

#endif
