#include "messages.h"

static uint8_t put_ident(uint8_t *out, const char *s) {
    uint8_t n = 0;
    while (s[n] && n < 32u) {
        out[1 + n] = (uint8_t)s[n];
        n++;
    }
    out[0] = n;
    return (uint8_t)(n + 1u);
}

uint16_t bt_enc_hello(uint8_t *out, uint8_t kind, uint32_t caps, uint32_t session_id, uint8_t rx_next,
                      const char *serial, const char *firmware) {
    out[0] = kind;
    bt_put32(out + 1, caps);
    bt_put32(out + 5, session_id);
    out[9] = rx_next;
    out[10] = 1;                 /* one version: v1 */
    out[11] = BT_VERSION;
    uint16_t n = 12;
    n += put_ident(out + n, serial);
    n += put_ident(out + n, firmware);
    return n;
}

uint16_t bt_enc_heartbeat(uint8_t *out, uint32_t clock_ms) {
    bt_put32(out, clock_ms);
    return 4;
}

uint16_t bt_enc_nack(uint8_t *out, uint8_t seq, uint16_t code) {
    out[0] = seq;
    bt_put16(out + 1, code);
    return 3;
}

uint16_t bt_enc_error(uint8_t *out, uint16_t code, const char *text) {
    bt_put16(out, code);
    uint8_t n = 0;
    while (text[n] && n < BT_MAX_TEXT) {
        out[3 + n] = (uint8_t)text[n];
        n++;
    }
    out[2] = n;
    return (uint16_t)(3u + n);
}

uint16_t bt_enc_card_read(uint8_t *out, uint8_t zone, uint32_t ts, int8_t rssi, const uint8_t *uid,
                          uint8_t uid_len) {
    out[0] = zone;
    bt_put32(out + 1, ts);
    out[5] = (uint8_t)rssi;
    out[6] = uid_len;
    for (uint8_t i = 0; i < uid_len; i++) out[7 + i] = uid[i];
    return (uint16_t)(7u + uid_len);
}

uint16_t bt_enc_hand_read(uint8_t *out, uint8_t zone, uint32_t ts, uint8_t part, uint8_t parts, uint8_t count) {
    out[0] = zone;
    bt_put32(out + 1, ts);
    out[5] = part;
    out[6] = parts;
    out[7] = count;
    return 8u;
}

uint16_t bt_enc_reader_status(uint8_t *out, uint8_t status, uint8_t antennas, uint8_t tags, uint32_t ts) {
    out[0] = status;
    out[1] = antennas;
    out[2] = tags;
    bt_put32(out + 3, ts);
    return 7;
}

uint16_t bt_enc_unit_status(uint8_t *out, uint8_t reset_cause, uint16_t stack_peak, uint16_t reader_resets,
                            uint32_t ts) {
    out[0] = reset_cause;
    bt_put16(out + 1, stack_peak);
    bt_put16(out + 3, reader_resets);
    bt_put32(out + 5, ts);
    return 9;
}

uint16_t bt_enc_call_pressed(uint8_t *out, uint8_t call, uint8_t alert, uint32_t ts) {
    out[0] = call;
    out[1] = alert ? 1u : 0u;
    bt_put32(out + 2, ts);
    return 6;
}

uint16_t bt_enc_undo(uint8_t *out, uint8_t call, uint32_t ts) {
    out[0] = call;
    bt_put32(out + 1, ts);
    return 5;
}

uint16_t bt_enc_stop_card(uint8_t *out, uint32_t ts) {
    bt_put32(out, ts);
    return 4;
}

uint16_t bt_enc_director_call(uint8_t *out, uint32_t ts) { return bt_enc_stop_card(out, ts); }   /* the same layout */

void bt_dec_welcome(const uint8_t *p, bt_welcome *w) {
    w->version = p[0];
    w->resumed = p[1] & 1u;
    w->session_id = bt_get32(p + 2);
    w->rx_next = p[6];
    w->seat = p[7];
    w->table = bt_get16(p + 8);
    w->heartbeat_ms = bt_get16(p + 10);
    w->link_timeout_ms = bt_get16(p + 12);
    w->retransmit_ms = bt_get16(p + 14);
    w->max_retries = p[16];
}

uint8_t bt_msg_direction(uint8_t type) {
    switch (type) {
    case BT_ACK: case BT_NACK: case BT_HEARTBEAT: case BT_ERROR:
        return BT_DIR_BOTH;
    case BT_WELCOME: case BT_RESET: case BT_BIND: case BT_SHOW_AUCTION: case BT_SHOW_CONTRACT:
    case BT_SHOW_TURN: case BT_SHOW_ERROR: case BT_SET_MODE: case BT_REFUSE_CALL: case BT_DEAL_BOARD:
    case BT_ENTER_BOOTLOADER:
        return BT_DIR_TO_DEVICE;
    case BT_HELLO: case BT_CARD_READ: case BT_HAND_READ: case BT_READER_STATUS: case BT_UNIT_STATUS:
    case BT_CALL_PRESSED:
    case BT_UNDO: case BT_STOP_CARD: case BT_TRAY_PASSED: case BT_DIRECTOR_CALL: case BT_CARD_DEALT: case BT_BOARD_NUMBER_READ:
    case BT_JAM: case BT_UNREADABLE_CARD: case BT_DEAL_DONE:
        return BT_DIR_TO_HOST;
    default:
        return BT_DIR_UNKNOWN;
    }
}

uint8_t bt_msg_is_control(uint8_t type) {
    return type == BT_HELLO || type == BT_WELCOME || type == BT_ACK || type == BT_NACK || type == BT_HEARTBEAT;
}

/* ---- layout checks: a cursor over the payload; any failure makes the payload malformed ---- */
typedef struct {
    const uint8_t *p;
    uint16_t n, i;
    uint8_t bad;
} rd;

static uint8_t u8(rd *r) {
    if (r->i >= r->n) {
        r->bad = 1;
        return 0;
    }
    return r->p[r->i++];
}

static uint16_t u16(rd *r) {
    uint16_t lo = u8(r);
    return (uint16_t)(lo | ((uint16_t)u8(r) << 8));
}

static void skip(rd *r, uint16_t k) {
    if ((uint32_t)r->i + k > r->n) r->bad = 1;
    else r->i = (uint16_t)(r->i + k);
}

static void need(rd *r, int ok) {
    if (!ok) r->bad = 1;
}

static void seat(rd *r, int optional) {
    uint8_t s = u8(r);
    need(r, s <= 3u || (optional && s == BT_NO_SEAT));
}

static void call(rd *r) { need(r, u8(r) <= BT_CALL_MAX); }

/* well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF), as the host's decoder wants */
static int utf8_ok(const uint8_t *s, uint16_t n) {
    uint16_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        uint8_t k;
        uint32_t cp;
        if (c < 0x80u) { i++; continue; }
        if (c >= 0xC2u && c <= 0xDFu) { k = 1; cp = c & 0x1Fu; }
        else if (c >= 0xE0u && c <= 0xEFu) { k = 2; cp = c & 0x0Fu; }
        else if (c >= 0xF0u && c <= 0xF4u) { k = 3; cp = c & 0x07u; }
        else return 0;
        if ((uint32_t)i + k >= (uint32_t)n + 1u) return 0;
        for (uint8_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0u) != 0x80u) return 0;
            cp = (cp << 6) | (s[i + j] & 0x3Fu);
        }
        if ((k == 2 && cp < 0x800ul) || (k == 3 && cp < 0x10000ul) || cp > 0x10FFFFul ||
            (cp >= 0xD800ul && cp <= 0xDFFFul))
            return 0;
        i = (uint16_t)(i + k + 1u);
    }
    return 1;
}

static void text(rd *r) {
    uint8_t len = u8(r);
    need(r, len <= BT_MAX_TEXT);
    uint16_t at = r->i;
    skip(r, len);
    if (!r->bad) need(r, utf8_ok(r->p + at, len));
}

static void ident(rd *r) {
    uint8_t len = u8(r);
    need(r, len >= 1u && len <= 32u);
    uint16_t at = r->i;
    skip(r, len);
    for (uint16_t k = 0; !r->bad && k < len; k++) need(r, r->p[at + k] >= 0x20u && r->p[at + k] <= 0x7Eu);
}

static void uid(rd *r) {
    uint8_t len = u8(r);
    need(r, len >= BT_UID_MIN && len <= BT_UID_MAX);
    skip(r, len);
}

uint16_t bt_msg_check(uint8_t type, const uint8_t *p, uint16_t n) {
    rd r = {p, n, 0, 0};
    switch (type) {
    case BT_HELLO: {
        need(&r, u8(&r) - 1u < 4u);              /* kind 1..4 */
        skip(&r, 9);                              /* capabilities, session_id, rx_next */
        uint8_t nv = u8(&r);
        need(&r, nv >= 1u && nv <= 16u);
        for (uint8_t k = 0; k < nv && !r.bad; k++) need(&r, u8(&r) >= 1u);
        ident(&r);
        ident(&r);
        break;
    }
    case BT_WELCOME:
        need(&r, u8(&r) >= 1u);
        need(&r, (u8(&r) & 0xFEu) == 0);
        skip(&r, 5);
        seat(&r, 1);
        skip(&r, 2);
        for (uint8_t k = 0; k < 3; k++) need(&r, u16(&r) >= 1u);
        skip(&r, 1);
        break;
    case BT_ACK: break;
    case BT_NACK: skip(&r, 3); break;
    case BT_HEARTBEAT: skip(&r, 4); break;
    case BT_ERROR: case BT_SHOW_ERROR: skip(&r, 2); text(&r); break;
    case BT_RESET: skip(&r, 2); need(&r, (u8(&r) & 0xFEu) == 0); break;
    case BT_BIND: seat(&r, 1); skip(&r, 2); break;
    case BT_CARD_READ:
        need(&r, u8(&r) <= 2u);
        skip(&r, 4);
        skip(&r, 1);                              /* rssi: every i8 is valid (-128: not measured) */
        uid(&r);
        break;
    case BT_HAND_READ: {
        need(&r, u8(&r) <= 2u);
        skip(&r, 4);
        uint8_t part = u8(&r), parts = u8(&r);
        need(&r, parts >= 1u && parts <= 32u && part < parts);
        uint8_t count = u8(&r);
        need(&r, count <= 32u);
        for (uint8_t k = 0; k < count && !r.bad; k++) uid(&r);
        break;
    }
    case BT_READER_STATUS: need(&r, u8(&r) <= 4u); need(&r, u8(&r) <= 7u); skip(&r, 5); break;
    case BT_UNIT_STATUS: need(&r, u8(&r) <= 0x1Fu); skip(&r, 8); break;
    case BT_CALL_PRESSED: call(&r); need(&r, (u8(&r) & 0xFEu) == 0); skip(&r, 4); break;
    case BT_UNDO: call(&r); skip(&r, 4); break;
    case BT_STOP_CARD: case BT_DIRECTOR_CALL: skip(&r, 4); break;
    case BT_TRAY_PASSED: need(&r, u8(&r) <= 1u); skip(&r, 4); break;
    case BT_CARD_DEALT: {
        uint8_t card = u8(&r);
        need(&r, card <= 51u || card == 0xFFu);
        seat(&r, 0);
        skip(&r, 4);
        uid(&r);
        break;
    }
    case BT_BOARD_NUMBER_READ: need(&r, u16(&r) >= 1u); skip(&r, 4); break;
    case BT_JAM: seat(&r, 1); need(&r, u8(&r) <= 52u); skip(&r, 4); break;
    case BT_UNREADABLE_CARD: need(&r, u8(&r) <= 52u); skip(&r, 4); break;
    case BT_DEAL_DONE: need(&r, u16(&r) >= 1u); need(&r, u8(&r) <= 52u); skip(&r, 4); break;
    case BT_SHOW_AUCTION: {
        seat(&r, 0);
        uint16_t count = u16(&r);
        need(&r, count <= 400u);
        for (uint16_t k = 0; k < count && !r.bad; k++) need(&r, (u8(&r) & 0x7Fu) <= BT_CALL_MAX);
        break;
    }
    case BT_SHOW_CONTRACT: {
        uint8_t bid = u8(&r), risk = u8(&r), decl = u8(&r);
        if (bid == 0) need(&r, risk == 0 && decl == BT_NO_SEAT);
        else need(&r, bid >= 3u && bid <= BT_CALL_MAX && risk <= 2u && decl <= 3u);
        break;
    }
    case BT_SHOW_TURN: seat(&r, 1); need(&r, u8(&r) <= 2u); break;
    case BT_SET_MODE: need(&r, u8(&r) <= 1u); skip(&r, 2); break;
    case BT_REFUSE_CALL: call(&r); skip(&r, 2); text(&r); break;
    case BT_ENTER_BOOTLOADER: skip(&r, 8); break;       /* session_id, "BOOT" */
    case BT_DEAL_BOARD:
        need(&r, u16(&r) >= 1u);
        for (uint8_t k = 0; k < 52u && !r.bad; k++) seat(&r, 0);
        break;
    default:
        return BT_E_UNKNOWN_MESSAGE;
    }
    if (r.bad || r.i != r.n) return BT_E_MALFORMED_PAYLOAD;
    return 0;
}
