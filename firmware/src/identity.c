#include "identity.h"

#include <avr/eeprom.h>

#define EE_MAGIC 0
#define EE_SEAT 3
#define EE_TABLE 4
#define EE_BOOTS 6
#define EE_READER 10
#define EE_BOX 34

static void read_serial(char *out, uint16_t at, const char *fallback) {
    uint8_t n = 0;
    for (; n < SERIAL_MAX; n++) {
        uint8_t c = eeprom_read_byte((const uint8_t *)at + n);
        if (c < 0x20u || c > 0x7Eu) break;        /* NUL padding, or an erased (0xFF) cell */
        out[n] = (char)c;
    }
    out[n] = 0;
    if (n == 0) {
        for (n = 0; fallback[n]; n++) out[n] = fallback[n];
        out[n] = 0;
    }
}

void identity_load(identity *id) {
    uint8_t ok = eeprom_read_byte((const uint8_t *)EE_MAGIC) == 'B' &&
                 eeprom_read_byte((const uint8_t *)EE_MAGIC + 1) == 'T' &&
                 eeprom_read_byte((const uint8_t *)EE_MAGIC + 2) == 1;
    if (!ok) {
        eeprom_update_byte((uint8_t *)EE_MAGIC, 'B');
        eeprom_update_byte((uint8_t *)EE_MAGIC + 1, 'T');
        eeprom_update_byte((uint8_t *)EE_MAGIC + 2, 1);
        eeprom_update_byte((uint8_t *)EE_SEAT, 0xFF);
        eeprom_update_word((uint16_t *)EE_TABLE, 0);
        eeprom_update_dword((uint32_t *)EE_BOOTS, 0);
    }
    read_serial(id->reader_serial, EE_READER, "SR-UNSET");
    read_serial(id->box_serial, EE_BOX, "BB-UNSET");
    id->seat = eeprom_read_byte((const uint8_t *)EE_SEAT);
    id->table = eeprom_read_word((const uint16_t *)EE_TABLE);
    id->boots = eeprom_read_dword((const uint32_t *)EE_BOOTS) + 1u;
    eeprom_update_dword((uint32_t *)EE_BOOTS, id->boots);
}

void identity_store_binding(identity *id, uint8_t seat, uint16_t table) {
    if (seat == id->seat && table == id->table) return;
    id->seat = seat;
    id->table = table;
    eeprom_update_byte((uint8_t *)EE_SEAT, seat);
    eeprom_update_word((uint16_t *)EE_TABLE, table);
}
