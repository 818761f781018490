/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bootstrap's messages on the wire (bootstrap.c): a fixed header in
 * network byte order and a payload of an exactly checked length.  Private
 * to libnetcoll; its tests build messages with it to play a hostile peer.
 */
#ifndef NC_BOOTSTRAP_WIRE_H
#define NC_BOOTSTRAP_WIRE_H

#include <stdint.h>

#include "bootstrap.h"

#define BOOT_MAGIC	0x4e434253U	/* "NCBS" */
/*
 * 2: HELLO carries the job token; 3: it proves it (HMAC), never sends it;
 * 4: rank 0 sends a CHALLENGE first and the HELLO answers it (a HELLO
 * replayed on another connection is refused), a WELCOME names its round,
 * and with a token a RESULT or FINAL of success proves it too.
 */
#define BOOT_VERSION	4

enum boot_type { BOOT_HELLO = 1, BOOT_WELCOME, BOOT_RESULT, BOOT_FINAL,
		 BOOT_CHALLENGE };

struct boot_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t err;		/* a positive errno; 0: none */
	uint32_t len;		/* payload bytes that follow */
};

#define HOST_LEN	64
#define BOOT_NONCE_LEN	16
#define BOOT_MAC_LEN	32	/* HMAC-SHA256 */

struct boot_hello {
	uint32_t rank, size, addr_len;
	uint8_t addr[NC_ADDR_MAX];
	char host[HOST_LEN];	/* for messages only */
	/* fresh for every HELLO: rank 0's WELCOME is bound to it */
	uint8_t nonce[BOOT_NONCE_LEN];
	/* rank 0's CHALLENGE on this connection (fresh for each), echoed */
	uint8_t challenge[BOOT_NONCE_LEN];
	/* under the job token, over this HELLO (mac zero); all zero: none */
	uint8_t mac[BOOT_MAC_LEN];
};

/*
 * CHALLENGE: BOOT_NONCE_LEN random bytes, rank 0's first words on every
 * connection.
 *
 * WELCOME: this, then size * addr_len bytes of addresses.
 */
struct boot_welcome {
	uint32_t id, size;
	uint32_t round;		/* 1, then one more after each FINAL EAGAIN */
	uint32_t cookie_hi, cookie_lo;
	uint32_t timeout_ms, oso, tree_degree;
	uint32_t key_len;
	uint8_t key[NC_KEY_MAX];	/* with a token: masked for the HELLO's nonce */
	uint32_t addr_len;
	/*
	 * With a token: under it, over the HELLO's nonce and this WELCOME
	 * (mac zero) with its addresses; rank 0 proves it knows the token.
	 */
	uint8_t mac[BOOT_MAC_LEN];
};

/*
 * RESULT and FINAL: an error's reason as text; with a job token, one of
 * success carries BOOT_MAC_LEN bytes, an HMAC under the token over the
 * HELLO's nonce, the CHALLENGE and the round (bootstrap.c, step_mac()).
 */

#endif /* NC_BOOTSTRAP_WIRE_H */
