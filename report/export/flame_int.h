/* SPDX-License-Identifier: MIT */
/*
 * Inside the flame graph pages (flame.c, flame_diff.c): the one page
 * (report/export/flamegraph.html) with the data put in its place, and the
 * layout of a tree in the page's data. Private to report/export.
 */
#ifndef PREC_REPORT_FLAME_INT_H
#define PREC_REPORT_FLAME_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The page, with what data(out, ctx) writes (the <script type="application/json"
 * id="fg-data"> element) where the data goes. data's code, -EINVAL when the
 * page has no place for it, -EIO when out reports a write error. */
int flame_write_page(FILE *out, int (*data)(FILE *out, void *ctx), void *ctx);

/* A tree of nr nodes (node 0 the root, parent[i] < i for the others, label
 * i names[label[i]]) in preorder, each node's children in name order (then
 * label order), as the page lays it out: order[k] is the k-th node, depth[k]
 * its depth; *max_depth the deepest. order and depth hold nr each. 0 or
 * -ENOMEM. */
int flame_preorder(size_t nr, const uint32_t *parent, const uint32_t *label,
		   const char *const *names, uint32_t *order, uint32_t *depth, uint32_t *max_depth);

/* ,\n"KEY":[v0,v1,...] */
void flame_put_u32s(FILE *out, const char *key, const uint32_t *v, size_t n);

#endif
