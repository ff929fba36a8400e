/* bridgetable wire protocol v1 (docs/protocol.md): constants shared by the firmware, the harness and the
 * native vector tool. Plain C99, no platform dependency. */
#ifndef BT_PROTO_H
#define BT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define BT_VERSION 1u
#define BT_HEADER_SIZE 7u
#define BT_CRC_SIZE 4u
#define BT_OVERHEAD (BT_HEADER_SIZE + BT_CRC_SIZE)
#define BT_MAX_PAYLOAD 512u
#define BT_MAX_FRAME (BT_OVERHEAD + BT_MAX_PAYLOAD)
#define BT_MAX_ENCODED (BT_MAX_FRAME + 1u + BT_MAX_FRAME / 254u)
#define BT_CRC_RESIDUE 0x2144DF1Cul
#define BT_NO_SEAT 0xFFu
#define BT_MAX_TEXT 200u
#define BT_UID_MIN 4u
#define BT_UID_MAX 10u

enum bt_flags { BT_F_RELIABLE = 0x01, BT_F_RETRANSMIT = 0x02, BT_F_FROM_HOST = 0x04 };

enum bt_type {
    BT_HELLO = 0x01, BT_WELCOME = 0x02, BT_ACK = 0x03, BT_NACK = 0x04, BT_HEARTBEAT = 0x05, BT_ERROR = 0x06,
    BT_RESET = 0x07, BT_BIND = 0x08,
    BT_CARD_READ = 0x10, BT_HAND_READ = 0x11, BT_READER_STATUS = 0x12, BT_UNIT_STATUS = 0x13,
    BT_CALL_PRESSED = 0x20, BT_UNDO = 0x21, BT_STOP_CARD = 0x22, BT_TRAY_PASSED = 0x23,
    BT_DIRECTOR_CALL = 0x24,
    BT_CARD_DEALT = 0x30, BT_BOARD_NUMBER_READ = 0x31, BT_JAM = 0x32, BT_UNREADABLE_CARD = 0x33,
    BT_DEAL_DONE = 0x34,
    BT_SHOW_AUCTION = 0x40, BT_SHOW_CONTRACT = 0x41, BT_SHOW_TURN = 0x42, BT_SHOW_ERROR = 0x43,
    BT_SET_MODE = 0x44, BT_REFUSE_CALL = 0x45, BT_DEAL_BOARD = 0x50,
    BT_ENTER_BOOTLOADER = 0x60     /* the update path: boot/boot_proto.h */
};

enum bt_kind { BT_KIND_SEAT_READER = 1, BT_KIND_BIDDING_BOX = 2, BT_KIND_BIDDING_SCREEN = 3, BT_KIND_DEALER = 4 };

enum bt_capability {
    BT_CAP_DISPLAY = 1ul << 0, BT_CAP_PREVENT_MODE = 1ul << 1, BT_CAP_ALERT = 1ul << 2, BT_CAP_UNDO = 1ul << 3,
    BT_CAP_STOP_CARD = 1ul << 4, BT_CAP_TRAY = 1ul << 5, BT_CAP_DUMMY_ZONE = 1ul << 6, BT_CAP_HAND_READ = 1ul << 7,
    BT_CAP_RSSI = 1ul << 8, BT_CAP_DIRECTOR_KEY = 1ul << 11
};

enum bt_zone { BT_ZONE_PLAY = 0, BT_ZONE_DUMMY = 1, BT_ZONE_HAND = 2 };
enum bt_reader_status { BT_RS_OK = 0, BT_RS_ANTENNA_FAULT = 1, BT_RS_COLLISION = 2, BT_RS_TOO_MANY_TAGS = 3,
                        BT_RS_FIELD_NOISE = 4 };

enum bt_error_code {
    BT_E_NONE = 0x0000, BT_E_BAD_FRAME = 0x0101, BT_E_UNKNOWN_MESSAGE = 0x0102, BT_E_MALFORMED_PAYLOAD = 0x0103,
    BT_E_UNEXPECTED_MESSAGE = 0x0104, BT_E_VERSION_UNSUPPORTED = 0x0105, BT_E_NOT_CONNECTED = 0x0106,
    BT_E_DEVICE_REFUSED = 0x0107, BT_E_LINK_TIMEOUT = 0x0108, BT_E_BUSY = 0x0109, BT_E_UNSUPPORTED = 0x010A,
    BT_E_HARDWARE_FAULT = 0x0201, BT_E_ANTENNA_FAULT = 0x0202
};

/* little-endian helpers */
static inline void bt_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void bt_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint16_t bt_get16(const uint8_t *p) { return (uint16_t)(p[0] | ((uint16_t)p[1] << 8)); }
static inline uint32_t bt_get32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

#endif
