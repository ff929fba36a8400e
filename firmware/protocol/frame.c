#include "frame.h"

#include "cobs.h"
#include "crc32.h"

size_t bt_frame_encode(const bt_frame *f, uint8_t *scratch, uint8_t *out) {
    scratch[0] = f->version;
    scratch[1] = f->type;
    scratch[2] = f->flags;
    scratch[3] = f->seq;
    scratch[4] = f->ack;
    bt_put16(scratch + 5, f->length);
    for (uint16_t i = 0; i < f->length; i++) scratch[BT_HEADER_SIZE + i] = f->payload[i];
    size_t n = BT_HEADER_SIZE + f->length;
    bt_put32(scratch + n, bt_crc32(scratch, n));
    n += BT_CRC_SIZE;
    size_t o = cobs_encode(scratch, n, out);
    out[o++] = 0;
    return o;
}

bt_rx_result bt_frame_decode(uint8_t *data, size_t n, uint16_t max_payload, bt_frame *out) {
    long m = cobs_decode(data, n, data);
    if (m < 0) return BT_RX_ERR_COBS;
    if ((size_t)m < BT_OVERHEAD) return BT_RX_ERR_TOO_SHORT;
    if (bt_crc32(data, (size_t)m) != BT_CRC_RESIDUE) return BT_RX_ERR_BAD_CRC;
    if (data[0] != BT_VERSION) return BT_RX_ERR_BAD_VERSION;
    uint16_t length = bt_get16(data + 5);
    if (length > max_payload) return BT_RX_ERR_OVERSIZE;
    if ((size_t)length != (size_t)m - BT_OVERHEAD) return BT_RX_ERR_BAD_LENGTH;
    out->version = data[0];
    out->type = data[1];
    out->flags = data[2];
    out->seq = data[3];
    out->ack = data[4];
    out->length = length;
    out->payload = data + BT_HEADER_SIZE;
    return BT_RX_FRAME;
}

void bt_decoder_init(bt_decoder *d, uint8_t *buf, uint16_t capacity, uint16_t max_payload) {
    d->buf = buf;
    d->capacity = capacity;
    d->max_payload = max_payload;
    d->len = 0;
    d->discarding = 0;
    d->stats = (bt_decoder_stats){0};
}

static bt_rx_result count(bt_decoder *d, bt_rx_result r) {
    switch (r) {
    case BT_RX_FRAME: d->stats.frames++; break;
    case BT_RX_ERR_COBS: d->stats.cobs_errors++; break;
    case BT_RX_ERR_TOO_SHORT: d->stats.too_short++; break;
    case BT_RX_ERR_OVERSIZE: d->stats.oversize++; break;
    case BT_RX_ERR_BAD_CRC: d->stats.crc_errors++; break;
    case BT_RX_ERR_BAD_VERSION: d->stats.version_errors++; break;
    case BT_RX_ERR_BAD_LENGTH: d->stats.length_errors++; break;
    case BT_RX_NONE: break;
    }
    return r;
}

bt_rx_result bt_decoder_feed(bt_decoder *d, uint8_t byte) {
    if (byte == 0) {
        if (d->discarding) {
            d->discarding = 0;
            return BT_RX_NONE;
        }
        if (d->len == 0) return BT_RX_NONE;          /* padding between frames is legal */
        uint16_t n = d->len;
        d->len = 0;
        return count(d, bt_frame_decode(d->buf, n, d->max_payload, &d->frame));
    }
    if (d->discarding) return BT_RX_NONE;
    if (d->len >= d->capacity) {                     /* oversize: drop it all up to the next delimiter */
        d->len = 0;
        d->discarding = 1;
        return count(d, BT_RX_ERR_OVERSIZE);
    }
    d->buf[d->len++] = byte;
    return BT_RX_NONE;
}

const char *bt_rx_result_name(bt_rx_result r) {
    switch (r) {
    case BT_RX_NONE: return "NONE";
    case BT_RX_FRAME: return "FRAME";
    case BT_RX_ERR_COBS: return "COBS";
    case BT_RX_ERR_TOO_SHORT: return "TOO_SHORT";
    case BT_RX_ERR_OVERSIZE: return "OVERSIZE";
    case BT_RX_ERR_BAD_CRC: return "BAD_CRC";
    case BT_RX_ERR_BAD_VERSION: return "BAD_VERSION";
    case BT_RX_ERR_BAD_LENGTH: return "BAD_LENGTH";
    }
    return "?";
}
