// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_TIMER_DELETE_SYNC: timer_delete_sync() and timer_delete()
 * exist.  Added in v6.2, as the new names of del_timer_sync() and
 * del_timer(); the old names were removed in v6.15.  Also backported to
 * the 6.1 stable series, so a version check would be wrong: Debian's 6.1
 * kernels have them.
 */
#include <linux/timer.h>

int sroce_probe_timer_delete_sync(struct timer_list *t);
int sroce_probe_timer_delete_sync(struct timer_list *t)
{
	return timer_delete(t) + timer_delete_sync(t);
}
