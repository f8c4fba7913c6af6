// SPDX-License-Identifier: MIT
/*
 * The view's entries built (another event, a zoom into a thread or a
 * command, a refresh), and its state kept across that by identity: an
 * entry is its sort-key cells as printed, a call-graph node its path of
 * names from the root. Open entries, unfolded nodes and the selected line
 * find their new places; what is gone is dropped. Also the zooms and the
 * symbol filter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "tui_int.h"

#define ID_SEP '\x1f'           /* between an entry's cells */
#define PATH_SEP '\x1e'         /* between a node path's names */

struct kept_ent {
	char *id;
	bool all_open;
	char **paths;           /* the exceptions to all_open */
	size_t nr_paths;
};

struct kept {
	struct kept_ent *ents;
	size_t nr, cap;
	struct hmap idx;        /* hash of id -> ents */
	const char *key;        /* hmap_find's question */
	char *sel_id, *sel_path;        /* the selected entry, and node if any */
	size_t sel_k, sel_off, old_sel;
	size_t sel_new;         /* its new index, or SIZE_MAX */
};

/* An entry's identity: its cells, ID_SEP after each; NUL-terminated. */
static int entry_id(const struct view *vw, const struct hentry *e, struct buf *b)
{
	char cell[4096];

	buf_reset(b);
	for (size_t j = 0; j < vw->nc; j++) {
		vw->cols[j].sk->text(vw->h, e, cell, sizeof(cell));
		if (buf_append(b, cell, strlen(cell)) || buf_append(b, &(char){ ID_SEP }, 1))
			return -ENOMEM;
	}
	return buf_append(b, "", 1);
}

/* The names from n down to t, PATH_SEP after each: true when t is under n. */
static bool find_path(const struct cnode *n, const struct cnode *t, struct buf *b, int depth)
{
	if (depth > 4096)
		return false;
	for (const struct cnode *ch = n->child; ch; ch = ch->next) {
		size_t at = b->len;

		if (buf_append(b, ch->name, strlen(ch->name)) ||
		    buf_append(b, &(char){ PATH_SEP }, 1))
			return false;
		if (ch == t || find_path(ch, t, b, depth + 1))
			return true;
		b->len = at;
	}
	return false;
}

static char *node_path(const struct hentry *e, const struct cnode *t)
{
	struct buf b = BUF_INIT;

	if (e->tree && find_path(e->tree, t, &b, 0) && !buf_append(&b, "", 1))
		return (char *)b.data;
	buf_free(&b);
	return NULL;
}

/* The node at a path under e's root, or NULL. */
static const struct cnode *node_at(const struct hentry *e, const char *path)
{
	const struct cnode *n = e->tree;

	while (n && *path) {
		const char *end = strchr(path, PATH_SEP);
		size_t len = end ? (size_t)(end - path) : strlen(path);
		const struct cnode *ch = n->child;

		while (ch && !(strlen(ch->name) == len && !memcmp(ch->name, path, len)))
			ch = ch->next;
		n = ch;
		path += len + (end != NULL);
	}
	return n == e->tree ? NULL : n;
}

static bool kept_eq(void *ctx, uint32_t i)
{
	const struct kept *k = ctx;

	return !strcmp(k->ents[i].id, k->key);
}

static uint64_t id_hash(const char *id)
{
	return hash_bytes(id, strlen(id), 3);
}

static int keep_entry(struct view *vw, size_t i, struct kept *k, struct buf *id)
{
	const struct vent *ve = &vw->ents[i];
	struct kept_ent *ke;

	if (entry_id(vw, &vw->h->entries[i], id) ||
	    array_grow((void **)&k->ents, &k->cap, k->nr + 1, sizeof(*k->ents)) ||
	    hmap_insert(&k->idx, id_hash((const char *)id->data), (uint32_t)k->nr))
		return -ENOMEM;
	ke = &k->ents[k->nr++];
	*ke = (struct kept_ent){ strdup((const char *)id->data), ve->all_open, NULL, 0 };
	if (!ke->id || (ve->nr_exc && !(ke->paths = calloc(ve->nr_exc, sizeof(*ke->paths)))))
		return -ENOMEM;
	for (size_t j = 0; j < ve->nr_exc; j++)
		if ((ke->paths[ke->nr_paths] = node_path(&vw->h->entries[i], ve->exc[j])))
			ke->nr_paths++;
	return 0;
}

/* What is open and selected, by identity (the selection on the first
 * row not, after a refresh: it stays on the first row). */
static int keep_save(struct view *vw, struct kept *k, bool refresh)
{
	const struct hentry *sel = view_entry(vw, vw->sel);
	struct buf id = BUF_INIT;
	int ret = 0;

	k->old_sel = vw->sel;
	k->sel_off = vw->sel >= vw->top ? vw->sel - vw->top : 0;
	for (size_t i = 0; i < vw->nr_ents && !ret; i++)
		if (vw->ents[i].open)
			ret = keep_entry(vw, i, k, &id);
	if (!ret && sel && (vw->sel || !refresh)) {
		struct vpos p = view_pos(vw, vw->sel);
		const struct vent *ve = &vw->ents[vw->vis[p.v]];
		const struct vline *ln = p.k && p.k <= ve->nr_lines ? &ve->lines[p.k - 1] : NULL;

		k->sel_k = p.k;
		if (entry_id(vw, sel, &id) || !(k->sel_id = strdup((const char *)id.data)))
			ret = -ENOMEM;
		else if (ln && ln->node)
			k->sel_path = node_path(sel, ln->node);
	}
	buf_free(&id);
	return ret;
}

static void kept_free(struct kept *k)
{
	for (size_t i = 0; i < k->nr; i++) {
		for (size_t j = 0; j < k->ents[i].nr_paths; j++)
			free(k->ents[i].paths[j]);
		free(k->ents[i].paths);
		free(k->ents[i].id);
	}
	free(k->ents);
	hmap_free(&k->idx);
	free(k->sel_id);
	free(k->sel_path);
}

/* A new entry that was open before: open again, with its nodes. */
static int reopen(struct view *vw, size_t i, const struct kept_ent *ke)
{
	struct vent *ve = &vw->ents[i];
	int ret = 0;

	ve->open = true;
	ve->all_open = ke->all_open;
	for (size_t j = 0; j < ke->nr_paths && !ret; j++) {
		const struct cnode *n = node_at(&vw->h->entries[i], ke->paths[j]);

		if (n && !vent_in_exc(ve, n))
			ret = vent_flip(ve, n);
	}
	return ret;
}

/* The new entries matched with what was kept. */
static int keep_restore(struct view *vw, struct kept *k)
{
	struct buf id = BUF_INIT;
	int ret = 0;

	k->sel_new = SIZE_MAX;
	if (!k->nr && !k->sel_id)
		return 0;
	for (size_t i = 0; i < vw->nr_ents && !ret; i++) {
		uint32_t at;

		if (entry_id(vw, &vw->h->entries[i], &id)) {
			ret = -ENOMEM;
			break;
		}
		k->key = (const char *)id.data;
		if (k->sel_id && k->sel_new == SIZE_MAX && !strcmp(k->sel_id, k->key))
			k->sel_new = i;
		if (hmap_find(&k->idx, id_hash(k->key), kept_eq, k, &at) && !vw->ents[i].open)
			ret = reopen(vw, i, &k->ents[at]);
	}
	buf_free(&id);
	return ret;
}

/* The selection on its entry's new line (and node), else where it was. */
static void keep_select(struct view *vw, const struct kept *k)
{
	size_t rows = view_rows(vw);

	vw->sel = k->sel_id ? k->old_sel : 0;
	for (size_t j = 0; j < vw->nr_vis && k->sel_new != SIZE_MAX; j++) {
		const struct vent *ve;
		const struct cnode *n;

		if (vw->vis[j] != k->sel_new)
			continue;
		ve = &vw->ents[vw->vis[j]];
		vw->sel = vw->first[j] + (k->sel_k <= ve->nr_lines ? k->sel_k : 0);
		n = k->sel_path ? node_at(&vw->h->entries[vw->vis[j]], k->sel_path) : NULL;
		for (size_t l = 0; n && l < ve->nr_lines; l++)
			if (ve->lines[l].node == n) {
				vw->sel = vw->first[j] + l + 1;
				break;
			}
		break;
	}
	if (vw->sel >= rows)
		vw->sel = rows ? rows - 1 : 0;
	vw->top = vw->sel >= k->sel_off ? vw->sel - k->sel_off : 0;
}

static bool keep_stack(void *ctx, const struct stack *s)
{
	const struct view *vw = ctx;

	if (vw->zthread && s->thread != vw->zthread)
		return false;
	return !vw->zcomm || (s->comm && !strcmp(s->comm, vw->zcomm));
}

static void free_ents(struct view *vw)
{
	for (size_t i = 0; i < vw->nr_ents; i++)
		vent_free(&vw->ents[i]);
	free(vw->ents);
	vw->ents = NULL;
	vw->nr_ents = 0;
}

void view_invalidate(struct view *vw)
{
	for (size_t i = 0; i < VIEW_CACHE; i++) {
		hist_entries_free(&vw->cache[i].e);
		vw->cache[i].used = false;
	}
	vw->built.used = false;
}

static bool same_build(const struct vbuilt *b, int event, const struct view *vw)
{
	return b->used && b->event == event && b->zthread == vw->zthread && b->zcomm == vw->zcomm;
}

/* A slot for the entries left: a free one, else the oldest. */
static struct vbuilt *free_slot(struct view *vw)
{
	struct vbuilt *slot = &vw->cache[0];

	for (size_t i = 0; i < VIEW_CACHE; i++) {
		if (!vw->cache[i].used)
			return &vw->cache[i];
		if (vw->cache[i].age < slot->age)
			slot = &vw->cache[i];
	}
	hist_entries_free(&slot->e);
	slot->used = false;
	return slot;
}

/* h's entries for the event and the zoom: kept from before, or built;
 * the entries they replace are kept (in the place of those taken out, or
 * of the oldest). */
static int build(struct view *vw, struct hist *h, int event)
{
	struct vbuilt *want = NULL, *slot;
	bool kept;
	int ret;

	if (same_build(&vw->built, event, vw))
		return 0;
	for (size_t i = 0; i < VIEW_CACHE && !want; i++)
		if (same_build(&vw->cache[i], event, vw))
			want = &vw->cache[i];
	kept = want && vw->built.used;  /* else nothing was kept: want is NULL */
	if (vw->built.used) {
		/* h's entries into the slot; the slot's (the wanted ones, or
		 * none) into h */
		slot = want ? want : free_slot(vw);
		hist_entries_swap(h, &slot->e);
		slot->used = true;
		slot->event = vw->built.event;
		slot->zthread = vw->built.zthread;
		slot->zcomm = vw->built.zcomm;
		slot->age = ++vw->age;
	}
	vw->built = (struct vbuilt){ .used = true, .event = event, .zthread = vw->zthread,
				     .zcomm = vw->zcomm };
	if (kept)
		return 0;
	ret = hist_build_keep(h, event, vw->zthread || vw->zcomm ? keep_stack : NULL, vw);
	if (ret)
		vw->built.used = false;
	return ret;
}

int view_rebuild(struct view *vw, struct hist *h, int event, bool refresh, struct err *err)
{
	struct kept k = { .idx = HMAP_INIT };
	int ret = vw->ents ? keep_save(vw, &k, refresh) : 0;

	free_ents(vw);
	if (h != vw->h)
		view_invalidate(vw);    /* a histogram handed over */
	vw->h = h;
	vw->event = event;
	vw->src->event(vw->src->ctx, event, &vw->ev);
	if (!ret)
		ret = build(vw, h, event);
	if (!ret && !(vw->ents = calloc(h->nr_entries + 1, sizeof(*vw->ents))))
		ret = -ENOMEM;
	if (!ret) {
		vw->nr_ents = h->nr_entries;
		print_cols_init(h, vw->src->dso_list, vw->cols, &vw->nc);
		ret = keep_restore(vw, &k);
	}
	if (!ret)
		ret = view_refilter(vw);
	if (!ret)
		keep_select(vw, &k);
	kept_free(&k);
	if (ret)
		err_set(err, ret, ret == -EINVAL ? "the --parent pattern does not compile" :
			"out of memory");
	return ret;
}

int view_init(struct view *vw, const struct browser_source *src, int event, struct err *err)
{
	memset(vw, 0, sizeof(*vw));
	vw->src = src;
	vw->line = (struct buf)BUF_INIT;
	return view_rebuild(vw, src->hist, event, false, err);
}

void view_free(struct view *vw)
{
	free_ents(vw);
	view_invalidate(vw);
	if (vw->re_text[0])
		regfree(&vw->re);
	free(vw->vis);
	free(vw->first);
	buf_free(&vw->line);
}

/* ---- zoom and filter ---------------------------------------------------- */

/* kind is the latest zoom now (set), or none of them (cleared) */
static void order_set(struct view *vw, enum zoom_kind kind, bool set)
{
	size_t j = 0;

	for (size_t i = 0; i < vw->nr_order; i++)
		if (vw->order[i] != kind)
			vw->order[j++] = vw->order[i];
	vw->nr_order = j;
	if (set)
		vw->order[vw->nr_order++] = kind;
}

/* The entries shown again (the same entries: the selection stays on its
 * entry's line, or where it was when that is hidden). */
static int reshow(struct view *vw, struct err *err)
{
	const struct hentry *sel = view_entry(vw, vw->sel);
	size_t si = sel ? (size_t)(sel - vw->h->entries) : SIZE_MAX, off = vw->sel - vw->top;
	size_t rows;
	int ret = view_refilter(vw);

	if (ret)
		return err_set(err, ret, "out of memory");
	rows = view_rows(vw);
	for (size_t j = 0; j < vw->nr_vis; j++)
		if (vw->vis[j] == si)
			vw->sel = vw->first[j];
	if (vw->sel >= rows)
		vw->sel = rows ? rows - 1 : 0;
	vw->top = vw->sel >= off ? vw->sel - off : 0;
	return 0;
}

static const char *entry_comm(const struct hentry *e)
{
	return e->key.comm ? e->key.comm : e->thread ? e->thread->comm : NULL;
}

int view_zoom(struct view *vw, enum zoom_kind kind, size_t row, struct err *err)
{
	const struct hentry *e = view_entry(vw, row);
	bool set;

	if (kind == ZOOM_THREAD) {
		if (!vw->zthread && (!e || !e->thread))
			return err_set(err, -ENOENT, "no thread to zoom into");
		vw->zthread = vw->zthread ? NULL : e->thread;
		set = vw->zthread;
	} else if (kind == ZOOM_COMM) {
		if (!vw->zcomm && (!e || !entry_comm(e)))
			return err_set(err, -ENOENT, "no command to zoom into");
		vw->zcomm = vw->zcomm ? NULL : entry_comm(e);
		set = vw->zcomm;
	} else {
		if (!vw->zdso && (!e || !vw->h->frames[e->frame].dso))
			return err_set(err, -ENOENT, "no binary to zoom into");
		vw->zdso = vw->zdso ? NULL : vw->h->frames[e->frame].dso;
		order_set(vw, kind, vw->zdso);
		return reshow(vw, err);
	}
	order_set(vw, kind, set);
	return view_rebuild(vw, vw->h, vw->event, false, err);
}

int view_filter(struct view *vw, const char *re, struct err *err)
{
	regex_t r;
	int ret;

	if (*re && (ret = regcomp(&r, re, REG_EXTENDED | REG_NOSUB))) {
		char msg[128];

		regerror(ret, &r, msg, sizeof(msg));
		return err_set(err, -EINVAL, "invalid regex '%s': %s", re, msg);
	}
	if (vw->re_text[0])
		regfree(&vw->re);
	vw->re_text[0] = 0;
	if (*re) {
		vw->re = r;
		snprintf(vw->re_text, sizeof(vw->re_text), "%s", re);
	}
	order_set(vw, ZOOM_SYMBOL, *re);
	return reshow(vw, err);
}

int view_unzoom(struct view *vw, struct err *err)
{
	enum zoom_kind kind;
	int ret;

	if (!vw->nr_order)
		return 0;
	kind = vw->order[vw->nr_order - 1];
	/* zooming again into what is zoomed into zooms out of it */
	ret = kind == ZOOM_SYMBOL ? view_filter(vw, "", err) : view_zoom(vw, kind, vw->sel, err);
	return ret ? ret : 1;
}

void view_zoom_text(const struct view *vw, char *buf, size_t n)
{
	int at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < vw->nr_order && at >= 0 && (size_t)at < n; i++) {
		const char *sep = i ? ", " : "";

		switch (vw->order[i]) {
		case ZOOM_THREAD:
			at += snprintf(buf + at, n - (size_t)at, "%sThread: %s(%u)", sep,
				       vw->zthread->comm ? vw->zthread->comm : "", vw->zthread->tid);
			break;
		case ZOOM_COMM:
			at += snprintf(buf + at, n - (size_t)at, "%sCommand: %s", sep, vw->zcomm);
			break;
		case ZOOM_DSO:
			at += snprintf(buf + at, n - (size_t)at, "%sDSO: %s", sep,
				       vw->zdso->short_name ? vw->zdso->short_name : vw->zdso->path);
			break;
		default:
			at += snprintf(buf + at, n - (size_t)at, "%sSymbol: %s", sep, vw->re_text);
		}
	}
}
