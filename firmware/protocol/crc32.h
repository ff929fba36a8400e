/* CRC-32/ISO-HDLC (docs/protocol.md §3.4), bitwise: no 1 KB table in a small MCU's flash. */
#ifndef BT_CRC32_H
#define BT_CRC32_H
#include <stddef.h>
#include <stdint.h>
uint32_t bt_crc32(const uint8_t *p, size_t n);
#endif
