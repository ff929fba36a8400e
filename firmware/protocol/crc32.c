#include "crc32.h"

uint32_t bt_crc32(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFul;
    while (n--) {
        crc ^= *p++;
        for (uint8_t k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320ul & (0ul - (crc & 1ul)));
    }
    return ~crc;
}
