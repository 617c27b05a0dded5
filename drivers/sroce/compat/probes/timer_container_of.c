// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_TIMER_CONTAINER_OF: timer_container_of() exists.  Added in
 * v6.16 ("timers: Rename from_timer() to timer_container_of()");
 * from_timer() was removed later in the same cycle.
 */
#include <linux/timer.h>

#ifndef timer_container_of
#error "no timer_container_of()"
#endif
