/*
 * lcache.h - the cache of lowered code: the ES5 text a worker made of a
 * modern script (or TypeScript), handed to a later worker that runs the
 * same code so that it compiles the text as it is (no pre-scan, no parse,
 * no lowering).
 *
 * An entry is keyed by the SHA-256 of (CTL_LOWERING_VERSION, the language
 * the request named, the code as the worker gets it) and belongs to one
 * owner: the text comes from a worker that parsed untrusted code and may
 * say anything, so it only ever reaches the owner whose worker made it,
 * whose own code it could have been anyway. The supervisor holds it as
 * opaque text (the compact JSON string the worker sent, validated by
 * protocol/ctl.c) and never parses it. Memory only: entries go with the
 * daemon. Bounded in entries and bytes (limits.h, LIMIT_LCACHE_*): past
 * either, the owner holding the most loses its least recently used entry
 * first, so one owner's flood evicts its own.
 *
 * One execution's use of the cache is a struct lcache_slot: looked up when
 * its job is made, offered the worker's text when its result is taken,
 * cleared when it ends.
 */
#ifndef SANDBOXD_LCACHE_H
#define SANDBOXD_LCACHE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../protocol/buf.h"

struct lcache_text; /* an entry's text, shared by reference */

struct lcache_slot {
	uint8_t key[32];
	bool keyed;		 /* key is set: the execution may offer its text */
	struct lcache_text *hit; /* the text its job carries (a reference), or NULL */
	struct buf view;	 /* hit's text, viewed for the job's stream */
};

/* The bounds (LIMIT_LCACHE_* until called; tests make them small).
 * Entries over the new bounds are evicted at once. */
void lcache_configure(unsigned max_entries, uint64_t max_bytes);

/*
 * Keys slot for code (code[0..len), as the worker gets it) of owner in
 * language ("javascript", "typescript" or NULL: told by the code), and
 * looks it up among owner's entries. On a hit the slot holds a reference
 * to the text (lcache_slot_text) until lcache_slot_clear. Never fails: out
 * of memory or an empty owner key is a miss that offers nothing.
 */
void lcache_lookup(struct lcache_slot *s, const char *owner, const char *language, const char *code,
		   size_t len);

/* The hit's text, a compact JSON string (quotes included), or NULL. */
const char *lcache_slot_text(const struct lcache_slot *s, size_t *len);

/*
 * The worker of slot's execution sent lowered text (text[0..len), a
 * compact JSON string that protocol/ctl.c validated and bounded): kept as
 * owner's entry under the slot's key, unless the slot was a hit or never
 * keyed. The text is copied.
 */
void lcache_offer(struct lcache_slot *s, const char *owner, const char *text, size_t len);

/* Drops the slot's reference; the slot may be looked up again. */
void lcache_slot_clear(struct lcache_slot *s);

/* For health: {"entries", "bytes", "hits", "stores"} of scope (an owner's
 * key: its entries, and the hits and stores counted while it held any) or
 * of everyone (NULL, adding "misses" and "evictions"). A new reference. */
json_t *lcache_describe(const char *scope);

/* Frees every entry (at exit; references held by slots stay valid). */
void lcache_free_all(void);

#endif
