/* Portable: compiled into the firmware and into the harness's MFRC522 model. */
#include <stdint.h>

uint16_t iso14443a_crc(const uint8_t *p, uint8_t n);

uint16_t iso14443a_crc(const uint8_t *p, uint8_t n) {
    uint16_t crc = 0x6363;
    while (n--) {
        uint8_t b = (uint8_t)(*p++ ^ (uint8_t)crc);
        b = (uint8_t)(b ^ (uint8_t)(b << 4));
        crc = (uint16_t)((crc >> 8) ^ ((uint16_t)b << 8) ^ ((uint16_t)b << 3) ^ (b >> 4));
    }
    return crc;
}
