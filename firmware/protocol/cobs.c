#include "cobs.h"

size_t cobs_encode(const uint8_t *in, size_t n, uint8_t *out) {
    size_t code_at = 0, o = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < n; i++) {
        if (in[i]) {
            out[o++] = in[i];
            code++;
        }
        if (!in[i] || code == 0xFF) {
            out[code_at] = code;
            code = 1;
            code_at = o;
            if (!in[i] || i + 1 < n) o++;
        }
    }
    out[code_at] = code;
    return o;
}

long cobs_decode(const uint8_t *in, size_t n, uint8_t *out) {
    size_t i = 0, o = 0;
    while (i < n) {
        uint8_t c = in[i];
        if (c == 0 || i + c > n) return -1;
        for (size_t k = 1; k < c; k++) out[o++] = in[i + k];
        i += c;
        if (c != 0xFF && i < n) out[o++] = 0;
    }
    return (long)o;
}
