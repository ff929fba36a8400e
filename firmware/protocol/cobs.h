/* COBS (docs/protocol.md §3.3). */
#ifndef BT_COBS_H
#define BT_COBS_H
#include <stddef.h>
#include <stdint.h>

/* Encodes n bytes; out must hold n + 1 + n/254 bytes. Returns the encoded length (no delimiter). */
size_t cobs_encode(const uint8_t *in, size_t n, uint8_t *out);
/* Decodes n bytes (no delimiter); out may equal in (decoding never writes ahead of reading).
 * Returns the decoded length, or -1 when a code byte points past the end or is 0. */
long cobs_decode(const uint8_t *in, size_t n, uint8_t *out);
#endif
