/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the .debug_frame rewrite (report/symbols/unwind_debug_frame.c). The
 * input is a .debug_frame section, converted for the executable range
 * [0x1000, 0x10000000) of a binary loaded at BIAS. Then libunwind itself
 * looks up the start of every FDE in the search table (the first 256) in
 * the image and must find an FDE starting there: whatever the input, the
 * rewritten entries and table are ones libunwind reads correctly.
 */
#include <stdint.h>
#include <stdlib.h>

#include "report/symbols/unwind_debug_frame.h"

extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					     unw_dyn_info_t *di, unw_proc_info_t *pi,
					     int need_unwind_info, void *arg);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BIAS 0x7f1234560000ull
#define LO 0x1000
#define HI 0x10000000

static struct dframe *img;

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *v, int write, void *arg)
{
	uint64_t x;

	(void)as;
	(void)arg;
	if (write || !dframe_read(img, BIAS, addr, &x))
		return -UNW_EINVAL;
	*v = x;
	return 0;
}

static unw_accessors_t acc = { .access_mem = access_mem };

static void check(unw_addr_space_t as)
{
	unw_dyn_info_t di;
	uint64_t lo, hi;
	size_t n = dframe_fdes(img);

	dframe_range(img, &lo, &hi);
	if (!n || lo < LO || hi > HI || lo >= hi || !dframe_dyn_info(img, BIAS, BIAS + lo, &di))
		abort();
	for (size_t i = 0; i < n && i < 256; i++) {
		unw_proc_info_t pi = { 0 };
		uint64_t entry, ip;

		if (!dframe_read(img, BIAS, di.u.rti.table_data + 8 * i, &entry))
			abort();
		ip = di.start_ip + (uint64_t)(int64_t)(int32_t)(uint32_t)entry;
		if (ip < di.start_ip || ip >= di.end_ip ||
		    UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, &pi, 0, NULL) || pi.start_ip != ip)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unw_addr_space_t as;

	if (!as && !(as = unw_create_addr_space(&acc, 0)))
		abort();
	if (dframe_new(data, size, LO, HI, &img) || !img)
		return 0;
	check(as);
	dframe_free(img);
	img = NULL;
	return 0;
}
