/* Frames (docs/protocol.md §3.2) and the receiver's byte-by-byte decoder with the checks of §4. */
#ifndef BT_FRAME_H
#define BT_FRAME_H
#include <stddef.h>
#include <stdint.h>

#include "bt_proto.h"

typedef struct {
    uint8_t version, type, flags, seq, ack;
    uint16_t length;
    const uint8_t *payload;
} bt_frame;

/* Builds the decoded frame in scratch (BT_OVERHEAD + payload length bytes), then writes its COBS encoding
 * and the 0x00 delimiter to out (BT_MAX_ENCODED + 1 bytes suffice). Returns the bytes written to out. */
size_t bt_frame_encode(const bt_frame *f, uint8_t *scratch, uint8_t *out);

typedef enum {
    BT_RX_NONE = 0,      /* byte taken, no frame ended */
    BT_RX_FRAME,         /* a good frame: bt_decoder.frame */
    BT_RX_ERR_COBS, BT_RX_ERR_TOO_SHORT, BT_RX_ERR_OVERSIZE, BT_RX_ERR_BAD_CRC, BT_RX_ERR_BAD_VERSION,
    BT_RX_ERR_BAD_LENGTH
} bt_rx_result;

typedef struct {
    uint32_t frames, cobs_errors, too_short, oversize, crc_errors, version_errors, length_errors;
} bt_decoder_stats;

typedef struct {
    uint8_t *buf;            /* caller's buffer: capacity bytes (BT_MAX_ENCODED to accept every v1 frame) */
    uint16_t capacity;
    uint16_t max_payload;    /* frames announcing more are OVERSIZE */
    uint16_t len;
    uint8_t discarding;      /* after an oversize frame: drop bytes up to the next 0x00 */
    bt_frame frame;          /* valid after BT_RX_FRAME until the next byte is fed */
    bt_decoder_stats stats;
} bt_decoder;

void bt_decoder_init(bt_decoder *d, uint8_t *buf, uint16_t capacity, uint16_t max_payload);
bt_rx_result bt_decoder_feed(bt_decoder *d, uint8_t byte);
/* Decodes one whole candidate (COBS bytes without the delimiter) in place: the checks of §4 in order. */
bt_rx_result bt_frame_decode(uint8_t *data, size_t n, uint16_t max_payload, bt_frame *out);
const char *bt_rx_result_name(bt_rx_result r);
#endif
