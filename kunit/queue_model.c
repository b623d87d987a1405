// SPDX-License-Identifier: GPL-2.0
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "queue_model.h"

int model_init(struct model *m, u64 now, u64 horizon, unsigned int nids)
{
	memset(m, 0, sizeof(*m));
	m->now = now;
	m->horizon = horizon;
	m->nids = nids;
	m->sorted = kcalloc(nids, sizeof(*m->sorted), GFP_KERNEL);
	m->queued = kcalloc(nids, sizeof(*m->queued), GFP_KERNEL);
	m->by_id = kcalloc(nids, sizeof(*m->by_id), GFP_KERNEL);
	if (!m->sorted || !m->queued || !m->by_id) {
		model_free(m);
		return -ENOMEM;
	}
	return 0;
}

void model_free(struct model *m)
{
	kfree(m->sorted);
	kfree(m->queued);
	kfree(m->by_id);
	m->sorted = NULL;
	m->queued = NULL;
	m->by_id = NULL;
}

static bool model_in_window(const struct model *m, u64 time)
{
	return time >= m->now && time - m->now < m->horizon;
}

static bool entry_before(const struct model_entry *a, u64 time, u64 seq)
{
	return a->time < time || (a->time == time && a->seq < seq);
}

/* The position of the first entry not before (time, seq). */
static unsigned int model_find(const struct model *m, u64 time, u64 seq)
{
	unsigned int lo = 0, hi = m->count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (entry_before(&m->sorted[mid], time, seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void model_add(struct model *m, unsigned int id, u64 time)
{
	struct model_entry e = { .time = time, .seq = m->seq++, .id = id };
	unsigned int pos = model_find(m, e.time, e.seq);

	memmove(&m->sorted[pos + 1], &m->sorted[pos],
		(m->count - pos) * sizeof(e));
	m->sorted[pos] = e;
	m->count++;
	m->queued[id] = true;
	m->by_id[id] = e;
}

static void model_remove(struct model *m, unsigned int id)
{
	unsigned int pos = model_find(m, m->by_id[id].time, m->by_id[id].seq);

	memmove(&m->sorted[pos], &m->sorted[pos + 1],
		(m->count - pos - 1) * sizeof(m->sorted[0]));
	m->count--;
	m->queued[id] = false;
}

int model_insert(struct model *m, unsigned int id, u64 time)
{
	if (m->queued[id])
		return -EBUSY;
	if (!model_in_window(m, time))
		return -ERANGE;
	model_add(m, id, time);
	return 0;
}

int model_delete(struct model *m, unsigned int id)
{
	if (!m->queued[id])
		return -ENOENT;
	model_remove(m, id);
	return 0;
}

int model_update(struct model *m, unsigned int id, u64 time)
{
	if (!m->queued[id])
		return -ENOENT;
	if (!model_in_window(m, time))
		return -ERANGE;
	model_remove(m, id);
	model_add(m, id, time);
	return 0;
}

int model_min(const struct model *m)
{
	return m->count ? (int)m->sorted[0].id : -1;
}

int model_delete_min(struct model *m)
{
	int id = model_min(m);

	if (id >= 0) {
		m->now = m->sorted[0].time;
		model_remove(m, id);
	}
	return id;
}

unsigned int model_del_less_than(struct model *m, u64 time, unsigned int *ids)
{
	unsigned int n = 0;

	if (time <= m->now)
		return 0;
	while (m->count && m->sorted[0].time < time)
		ids[n++] = model_delete_min(m);
	m->now = time;
	return n;
}
