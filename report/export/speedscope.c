/* SPDX-License-Identifier: MIT */
/* The speedscope file format; see speedscope.h. */
#include "speedscope.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report/core/offcpu.h"

struct profile {
	size_t first, n;        /* in the sorted stack order */
	uint64_t weight;
};

/* stacks grouped by event, then process and thread (qsort_r: ctx is the
 * stacks the indices point into) */
static int cmp_stack(const void *pa, const void *pb, void *ctx)
{
	const struct stacks *sort_stacks = ctx;
	const struct sstack *a = &sort_stacks->stacks[*(const uint32_t *)pa];
	const struct sstack *b = &sort_stacks->stacks[*(const uint32_t *)pb];

	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	if (a->thread->pid != b->thread->pid)
		return a->thread->pid < b->thread->pid ? -1 : 1;
	if (a->thread->tid != b->thread->tid)
		return a->thread->tid < b->thread->tid ? -1 : 1;
	if (a->thread != b->thread)     /* a tid used again */
		return (uintptr_t)a->thread < (uintptr_t)b->thread ? -1 : 1;
	return *(const uint32_t *)pa < *(const uint32_t *)pb ? -1 : 1;
}

/* another profile: another event or thread */
static bool other_profile(const struct stacks *s, uint32_t a, uint32_t b)
{
	return s->stacks[a].event != s->stacks[b].event || s->stacks[a].thread != s->stacks[b].thread;
}

static int cmp_profile(const void *pa, const void *pb)
{
	const struct profile *a = pa, *b = pb;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return a->first < b->first ? -1 : 1;
}

static bool time_event(const char *name)
{
	size_t n = strcspn(name, ":");

	return (n == 9 && !strncmp(name, "cpu-clock", 9)) || (n == 10 && !strncmp(name, "task-clock", 10)) ||
	       offcpu_weighted_event(name);
}

static void write_frames(FILE *out, const struct stacks *s)
{
	fputs("\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < s->nr_frames; i++) {
		const struct sframe *f = &s->frames[i];
		const char *file = f->file ? f->file : sframe_dso_name(f);

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		json_string(out, f->name);
		if (file) {
			fputs(",\"file\":", out);
			json_string(out, file);
		}
		if (f->file && f->line)
			fprintf(out, ",\"line\":%u", f->line);
		fputc('}', out);
	}
	fputs("]},\n", out);
}

static void write_profile(FILE *out, const struct load *l, const struct stacks *s,
			  const uint32_t *order, const struct profile *p)
{
	const struct sstack *st0 = &s->stacks[order[p->first]];
	const char *event = load_event_name(l, st0->event);
	char name[256];

	/* the thread's last name, as perf's per-thread entries have it (its
	 * first samples may come before it names itself) */
	snprintf(name, sizeof(name), "%s %u/%u %s",
		 st0->thread->comm ? st0->thread->comm : st0->comm ? st0->comm : "",
		 st0->thread->pid, st0->thread->tid, event);
	fputs("{\"type\":\"sampled\",\"name\":", out);
	json_string(out, name);
	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
		time_event(event) ? "nanoseconds" : "none", p->weight);
	for (size_t i = 0; i < p->n; i++) {
		const struct sstack *st = &s->stacks[order[p->first + i]];

		fputs(i ? ",[" : "[", out);
		for (uint32_t j = 0; j < st->nr; j++)
			fprintf(out, j ? ",%u" : "%u", s->ids[st->first + j]);
		fputc(']', out);
	}
	fputs("],\n\"weights\":[", out);
	for (size_t i = 0; i < p->n; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, s->stacks[order[p->first + i]].period);
	fputs("]}", out);
}

int speedscope_write(FILE *out, const struct load *l, const struct stacks *s, const char *name,
		     const char *exporter)
{
	uint32_t *order = malloc((s->nr_stacks + 1) * sizeof(*order));
	struct profile *prof = malloc((s->nr_stacks + 1) * sizeof(*prof));
	size_t np = 0;

	if (!order || !prof) {
		free(order);
		free(prof);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_stacks; i++)
		order[i] = (uint32_t)i;
	if (s->nr_stacks)
		qsort_r(order, s->nr_stacks, sizeof(*order), cmp_stack, (void *)s);
	for (size_t i = 0; i < s->nr_stacks; i++) {
		const struct sstack *st = &s->stacks[order[i]];

		if (!np || other_profile(s, order[prof[np - 1].first], order[i]))
			prof[np++] = (struct profile){ .first = i };
		prof[np - 1].n++;
		prof[np - 1].weight += st->period;
	}
	if (np)
		qsort(prof, np, sizeof(*prof), cmp_profile);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n\"name\":", out);
	json_string(out, name);
	fputs(",\"exporter\":", out);
	json_string(out, exporter);
	fputs(",\"activeProfileIndex\":0,\n", out);
	write_frames(out, s);
	fputs("\"profiles\":[", out);
	for (size_t i = 0; i < np; i++) {
		fputs(i ? ",\n" : "\n", out);
		write_profile(out, l, s, order, &prof[i]);
	}
	fputs("]}\n", out);
	free(order);
	free(prof);
	return ferror(out) ? -EIO : 0;
}
