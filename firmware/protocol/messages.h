/* Message payloads (docs/protocol.md §8-§9): encoders for what a seat unit sends, a layout check for every
 * v1 message type, and decoders for the host commands a seat unit acts on. */
#ifndef BT_MESSAGES_H
#define BT_MESSAGES_H
#include <stdint.h>

#include "bt_proto.h"

enum bt_direction { BT_DIR_UNKNOWN = 0, BT_DIR_TO_HOST = 1, BT_DIR_TO_DEVICE = 2, BT_DIR_BOTH = 3 };

/* Direction of a message type (BT_DIR_UNKNOWN: not a v1 type). */
uint8_t bt_msg_direction(uint8_t type);
/* HELLO, WELCOME, ACK, NACK, HEARTBEAT: consumed by the session, never sent reliable. */
uint8_t bt_msg_is_control(uint8_t type);
/* 0 when the payload matches the type's layout; else BT_E_UNKNOWN_MESSAGE or BT_E_MALFORMED_PAYLOAD. */
uint16_t bt_msg_check(uint8_t type, const uint8_t *p, uint16_t n);

/* Encoders: write the payload to out, return its length. */
uint16_t bt_enc_hello(uint8_t *out, uint8_t kind, uint32_t caps, uint32_t session_id, uint8_t rx_next,
                      const char *serial, const char *firmware);
uint16_t bt_enc_heartbeat(uint8_t *out, uint32_t clock_ms);
uint16_t bt_enc_nack(uint8_t *out, uint8_t seq, uint16_t code);
uint16_t bt_enc_error(uint8_t *out, uint16_t code, const char *text);
uint16_t bt_enc_card_read(uint8_t *out, uint8_t zone, uint32_t ts, int8_t rssi, const uint8_t *uid,
                          uint8_t uid_len);
/* HAND_READ's header: part `part` (0-based) of `parts` of the hand read at `ts`, `count` tags in this part;
 * the caller appends the tags (length-prefixed UIDs) */
uint16_t bt_enc_hand_read(uint8_t *out, uint8_t zone, uint32_t ts, uint8_t part, uint8_t parts, uint8_t count);
uint16_t bt_enc_reader_status(uint8_t *out, uint8_t status, uint8_t antennas, uint8_t tags, uint32_t ts);
/* UNIT_STATUS: the last reset's cause (MCUSR bits), the stack's deepest use in bytes, reader re-inits */
uint16_t bt_enc_unit_status(uint8_t *out, uint8_t reset_cause, uint16_t stack_peak, uint16_t reader_resets,
                            uint32_t ts);
uint16_t bt_enc_call_pressed(uint8_t *out, uint8_t call, uint8_t alert, uint32_t ts);
uint16_t bt_enc_undo(uint8_t *out, uint8_t call, uint32_t ts);
uint16_t bt_enc_stop_card(uint8_t *out, uint32_t ts);
uint16_t bt_enc_director_call(uint8_t *out, uint32_t ts);

typedef struct {
    uint8_t version, resumed, rx_next, seat, max_retries;
    uint32_t session_id;
    uint16_t table, heartbeat_ms, link_timeout_ms, retransmit_ms;
} bt_welcome;

/* Decoders for checked payloads (call bt_msg_check first). */
void bt_dec_welcome(const uint8_t *p, bt_welcome *w);

#define BT_CALL_PASS 0u
#define BT_CALL_X 1u
#define BT_CALL_XX 2u
#define BT_CALL_MAX 37u
/* bid code of level 1..7 and strain 0 C, 1 D, 2 H, 3 S, 4 NT (§9.1) */
#define BT_BID(level, strain) ((uint8_t)(3u + ((level) - 1u) * 5u + (strain)))
#endif
