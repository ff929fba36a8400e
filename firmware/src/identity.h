/* Identity in EEPROM: the two links' serial numbers, the seat and table last bound, a boot counter.
 * Layout (little-endian): 0 'B' 'T' magic, 2 layout 1, 3 seat (0xFF none), 4 table u16, 6 boots u32,
 * 10 reader serial (24 bytes, NUL-padded), 34 box serial (24 bytes). docs/hardware.md shows how to write it. */
#ifndef IDENTITY_H
#define IDENTITY_H
#include <stdint.h>

#define SERIAL_MAX 24u

typedef struct {
    char reader_serial[SERIAL_MAX + 1];
    char box_serial[SERIAL_MAX + 1];
    uint8_t seat;
    uint16_t table;
    uint32_t boots;
} identity;

/* Reads the identity and counts this boot; an unprogrammed EEPROM gives serials SR-UNSET / BB-UNSET. */
void identity_load(identity *id);
/* Stores a new binding (only when it changed: EEPROM cells wear). */
void identity_store_binding(identity *id, uint8_t seat, uint16_t table);
#endif
