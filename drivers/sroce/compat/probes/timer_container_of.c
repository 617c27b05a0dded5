// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_TIMER_CONTAINER_OF: timer_container_of() exists.  Added in
 * v6.16 (41cb08555c41, "treewide, timers: Rename from_timer() to
 * timer_container_of()").
 */
#include <linux/timer.h>

#ifndef timer_container_of
#error "no timer_container_of()"
#endif
