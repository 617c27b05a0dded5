// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_MODULE_IMPORT_NS_IDENT: MODULE_IMPORT_NS() takes the
 * namespace as a bare identifier, which it stringifies.  From v6.13
 * (cdd30ebb1b9f, "module: Convert symbol namespace to string literal") it
 * takes a string literal, and an identifier no longer compiles.
 */
#include <linux/module.h>

MODULE_IMPORT_NS(SROCE_PROBE_NAMESPACE);
