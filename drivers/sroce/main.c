// SPDX-License-Identifier: GPL-2.0
/*
 * sroce: an alternate soft-RoCE provider whose RC responder decisions come
 * from a freestanding C++ core (drivers/sroce/core/).  Module init and
 * exit only.
 */
#include <linux/module.h>
#include <linux/init.h>

static int __init sroce_init(void)
{
	return 0;
}

static void __exit sroce_exit(void)
{
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("sroce developers");
MODULE_DESCRIPTION("Soft RoCE provider with a spec-exact RC responder core");
MODULE_LICENSE("GPL");
