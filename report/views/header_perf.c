/* SPDX-License-Identifier: MIT */
/*
 * prep --header of a perf.data file, as perf report --header prints it:
 * where the sections are, then one line (or a few) per feature the file
 * has, in feature order, and the features it lacks.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "print.h"

/* "# label : value" of a meta string (a string list joined by spaces, each
 * word followed by one, as perf prints the command line) */
static void meta_text(FILE *out, const struct metadata *m, uint16_t tag, const char *label)
{
	const struct meta_item *it = metadata_get(m, tag);

	if (!it)
		return;
	fprintf(out, "# %s : ", label);
	for (uint32_t i = 0; i < it->len; i++)
		fputc(it->value[i] ? it->value[i] : ' ', out);
	fputc('\n', out);
}

static void meta_num(FILE *out, const struct metadata *m, uint16_t tag, const char *label,
		     const char *unit)
{
	uint64_t v;

	if (metadata_get_u64(m, tag, &v))
		fprintf(out, "# %s : %" PRIu64 "%s\n", label, v, unit);
}

/* PMU_MAPPINGS: "name = type" pairs */
static void pmu_mappings(FILE *out, const uint8_t *p, size_t len)
{
	struct cursor c = cur_make(p, len);
	uint32_t nr, type;

	if (!cur_h32(&c, &nr) || nr > len / 8)
		return;
	fprintf(out, "# pmu mappings:");
	for (uint32_t i = 0; i < nr; i++) {
		char *name;

		if (!cur_h32(&c, &type) || perfdata_string(&c, &name))
			break;
		fprintf(out, "%s %s = %u", i ? "," : "", name, type);
		free(name);
	}
	fputc('\n', out);
}

static void feature_lines(FILE *out, const struct session *s, unsigned f)
{
	const struct perfdata_info *in = perfdata_info(s->pd);
	const struct metadata *m = &s->meta;
	const uint8_t *p;
	size_t len;

	switch (f) {
	case PERFDATA_FEAT_HOSTNAME: meta_text(out, m, META_HOSTNAME, "hostname"); break;
	case PERFDATA_FEAT_OSRELEASE: meta_text(out, m, META_OS_RELEASE, "os release"); break;
	case PERFDATA_FEAT_VERSION: meta_text(out, m, META_WRITER, "perf version"); break;
	case PERFDATA_FEAT_ARCH: meta_text(out, m, META_ARCH, "arch"); break;
	case PERFDATA_FEAT_NRCPUS:
		meta_num(out, m, META_NR_CPUS_ONLINE, "nrcpus online", "");
		meta_num(out, m, META_NR_CPUS_AVAIL, "nrcpus avail", "");
		break;
	case PERFDATA_FEAT_CPUDESC: meta_text(out, m, META_CPU_DESC, "cpudesc"); break;
	case PERFDATA_FEAT_CPUID:
		if (in->cpuid)
			fprintf(out, "# cpuid : %s\n", in->cpuid);
		break;
	case PERFDATA_FEAT_TOTAL_MEM: meta_num(out, m, META_TOTAL_MEM_KB, "total memory", " kB"); break;
	case PERFDATA_FEAT_CMDLINE: meta_text(out, m, META_CMDLINE, "cmdline"); break;
	case PERFDATA_FEAT_EVENT_DESC:
		for (size_t e = 0; e < s->nr_events; e++) {
			fprintf(out, "# event : name = %s, , id = {", session_event_name(s, (int)e));
			for (size_t k = 0; k < s->events[e].nr_ids; k++)
				fprintf(out, "%s %" PRIu64, k ? "," : "", s->events[e].ids[k].id);
			fprintf(out, " }");
			print_attr_fields(out, &s->events[e].attr);
			fputc('\n', out);
		}
		break;
	case PERFDATA_FEAT_CPU_TOPOLOGY: case PERFDATA_FEAT_NUMA_TOPOLOGY:
	case PERFDATA_FEAT_CACHE: case PERFDATA_FEAT_MEM_TOPOLOGY:
		fprintf(out, "# %s info available, use -I to display\n", perfdata_feature_name(f));
		break;
	case PERFDATA_FEAT_PMU_MAPPINGS:
		if (perfdata_feature(s->pd, f, &p, &len))
			pmu_mappings(out, p, len);
		break;
	case PERFDATA_FEAT_SAMPLE_TIME:
		if (!in->has_sample_time)
			break;
		fprintf(out, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n",
			in->first_sample_time / 1000000000, in->first_sample_time % 1000000000 / 1000);
		fprintf(out, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n",
			in->last_sample_time / 1000000000, in->last_sample_time % 1000000000 / 1000);
		fprintf(out, "# sample duration : %10.3f ms\n",
			in->last_sample_time >= in->first_sample_time ?
			(double)(in->last_sample_time - in->first_sample_time) / 1e6 : 0.0);
		break;
	case PERFDATA_FEAT_COMPRESSED:
		if (in->has_compressed)
			fprintf(out, "# compressed : %s, level = %u, ratio = %u\n",
				in->comp_type == 1 ? "Zstd" : "Unknown", in->comp_level, in->comp_ratio);
		break;
	case PERFDATA_FEAT_STAT:
		fprintf(out, "# contains stat data\n");
		break;
	}
}

void print_captured_on(FILE *out, const struct metadata *m)
{
	uint64_t v;

	fprintf(out, "# ========\n# captured on    : ");
	if (metadata_get_u64(m, META_START_TIME_NS, &v)) {
		time_t t = (time_t)(v / 1000000000ull);
		char tb[64];

		strftime(tb, sizeof(tb), "%a %b %e %H:%M:%S %Y", localtime(&t));
		fprintf(out, "%s\n", tb);
	} else {
		fprintf(out, "unknown\n");
	}
}

void print_perf_header(FILE *out, const struct session *s)
{
	const struct perfdata_info *in = perfdata_info(s->pd);
	bool missing = false;

	print_captured_on(out, &s->meta);
	fprintf(out, "# header version : 1\n");
	fprintf(out, "# data offset    : %" PRIu64 "\n", in->data_offset);
	fprintf(out, "# data size      : %" PRIu64 "\n", in->data_size);
	fprintf(out, "# feat offset    : %" PRIu64 "\n", in->feat_offset);
	/* pipe mode: perf ends the header there and prints the features as
	 * their records come */
	if (in->pipe)
		fprintf(out, "# ========\n#\n");
	for (unsigned f = 1; f < PERFDATA_FEAT_MAX; f++)
		if (in->features[f / 8] & (1u << (f % 8)))
			feature_lines(out, s, f);
	if (in->pipe)
		return;
	/* the features perf 6.1 knows that the file lacks */
	for (unsigned f = 1; f <= PERFDATA_FEAT_PMU_CAPS; f++) {
		if (in->features[f / 8] & (1u << (f % 8)))
			continue;
		fprintf(out, "%s%s", missing ? "" : "# missing features: ", perfdata_feature_name(f));
		fputc(' ', out);
		missing = true;
	}
	if (missing)
		fputc('\n', out);
	fprintf(out, "# ========\n#\n");
}
