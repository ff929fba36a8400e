/* Seat unit firmware: an MFRC522 card reader and a bidding box at one seat, each speaking the bridgetable
 * wire protocol (docs/protocol.md) on its own UART, as its own device (seat reader, bidding box). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "../protocol/crc32.h"
#include "../protocol/session.h"
#include "bidding.h"
#include "board.h"
#include "clock.h"
#include "display.h"
#include "identity.h"
#include "keys.h"
#include "mfrc522.h"
#include "uart.h"

enum { READER = 0, BOX = 1 };

static identity id;
static bt_session links[2];
static uint8_t rx_buf[2][BT_MAX_ENCODED];   /* full-size receive buffers: every v1 frame is accepted */
static uint8_t antenna_ok;
static struct {
    uint8_t prevent;              /* SET_MODE: 1 PREVENT (the host may refuse a call), 0 FLAG */
    uint16_t undo_ms;             /* SET_MODE: the undo window after a call (0: no undo) */
    uint8_t last_call;            /* the last call sent, while it may still be undone (0xFF: none) */
    uint32_t last_at;
} box = {0, 0, 0xFFu, 0};

static struct {
    uint8_t present, len, absent, checks;
    uint8_t uid[MFRC522_UID_MAX];
} tag;

static void link_write(void *ctx, const uint8_t *data, size_t n) { uart_write((uint8_t)(uintptr_t)ctx, data, n); }

static void send_reader_status(uint32_t now) {
    uint8_t p[7];
    bt_enc_reader_status(p, antenna_ok ? BT_RS_OK : BT_RS_ANTENNA_FAULT, antenna_ok ? 1u : 0u, tag.present, now);
    bt_session_send(&links[READER], BT_READER_STATUS, p, 7, now);
}

static void on_message(void *ctx, uint8_t type, const uint8_t *p, uint16_t n) {
    (void)n;
    uint8_t port = (uint8_t)(uintptr_t)ctx;
    if (type == BT_WELCOME) {
        identity_store_binding(&id, p[7], bt_get16(p + 8));
        if (port == READER) send_reader_status(clock_ms());
    } else if (type == BT_BIND) {
        identity_store_binding(&id, p[0], bt_get16(p + 1));
    } else if (port == BOX) {
        switch (type) {
        case BT_SHOW_TURN: display_turn(p); break;
        case BT_SHOW_CONTRACT: display_contract(p); break;
        case BT_SHOW_AUCTION: display_auction(p); break;
        case BT_SHOW_ERROR: display_message(p + 2); break;
        case BT_SET_MODE:
            box.prevent = p[0];
            box.undo_ms = bt_get16(p + 1);
            break;
        case BT_REFUSE_CALL:                  /* the call is withdrawn: off the display, the player calls again */
            if (!box.prevent) break;
            if (box.last_call == p[0]) box.last_call = 0xFFu;
            display_keying(0, 0, 0xFFu);
            display_message(p + 3);
            break;
        default: break;
        }
    }
}

static uint32_t session_id_for(const char *serial) {
    uint8_t n = 0;
    while (serial[n]) n++;
    uint32_t sid = bt_crc32((const uint8_t *)serial, n) ^ (id.boots * 0x9E3779B9ul);   /* new at every boot */
    return sid ? sid : 1u;
}

static void poll_reader(uint32_t now) {
    uint8_t uid[MFRC522_UID_MAX];
    /* The tag already reported usually still lies there: a short presence check (a quarter of the SPI traffic)
     * tells so; a 7-byte UID is matched on its level-1 bytes only, so every 8th round reads the whole UID. */
    if (tag.present && (++tag.checks & 7u) && mfrc522_still_present(tag.uid, tag.len)) {
        tag.absent = 0;
        return;
    }
    uint8_t n = mfrc522_read_uid(uid);
    if (!n) {
        if (tag.present && ++tag.absent >= RFID_ABSENT_POLLS) tag.present = 0;
        return;
    }
    tag.absent = 0;
    uint8_t same = tag.present && n == tag.len;
    for (uint8_t i = 0; same && i < n; i++) same = uid[i] == tag.uid[i];
    if (same) return;                             /* the card still lying on the antenna: reported already */
    tag.present = 1;
    tag.len = n;
    for (uint8_t i = 0; i < n; i++) tag.uid[i] = uid[i];
    uint8_t p[BT_EVENT_MAX];
    uint16_t len = bt_enc_card_read(p, BT_ZONE_PLAY, now, -128, uid, n);
    bt_session_send(&links[READER], BT_CARD_READ, p, (uint8_t)len, now);
}

static bidding bid;

static void box_key(uint8_t key, uint32_t at) {
    uint8_t p[6];
    if (key == KEY_STOP) {
        bt_session_send(&links[BOX], BT_STOP_CARD, p, (uint8_t)bt_enc_stop_card(p, at), at);
    } else if (key == KEY_UNDO) {
        /* only inside the window (Law 25A: a change without pause for thought); the host decides the rest */
        if (box.last_call == 0xFFu || !box.undo_ms || (uint32_t)(at - box.last_at) > box.undo_ms) return;
        bt_session_send(&links[BOX], BT_UNDO, p, (uint8_t)bt_enc_undo(p, box.last_call, at), at);
        box.last_call = 0xFFu;
        display_keying(0, 0, 0xFFu);
    }
}

static void handle_keys(void) {
    uint8_t key;
    uint32_t at;
    while (keys_next(&key, &at)) {
        uint8_t call, alert;
        if (key >= KEY_UNDO) {
            box_key(key, at);
        } else if (!bidding_key(&bid, key, &call, &alert)) {
            display_keying(bid.level, bid.alert, 0xFFu);
        } else {
            display_keying(0, alert, call);
            box.last_call = call;
            box.last_at = at;
            uint8_t p[6];
            bt_enc_call_pressed(p, call, alert, at);
            bt_session_send(&links[BOX], BT_CALL_PRESSED, p, 6, at);
        }
    }
}

int main(void) {
    identity_load(&id);
    clock_init();
    uart_init();
    keys_init();
    sei();
    antenna_ok = mfrc522_init();
    display_init();
    bt_session_init(&links[READER], BT_KIND_SEAT_READER, 0, session_id_for(id.reader_serial), id.reader_serial,
                    FIRMWARE_VERSION, rx_buf[READER], sizeof rx_buf[READER], link_write, on_message,
                    (void *)(uintptr_t)READER);
    bt_session_init(&links[BOX], BT_KIND_BIDDING_BOX, BT_CAP_ALERT | BT_CAP_DISPLAY | BT_CAP_PREVENT_MODE | BT_CAP_UNDO | BT_CAP_STOP_CARD, session_id_for(id.box_serial), id.box_serial,
                    FIRMWARE_VERSION, rx_buf[BOX], sizeof rx_buf[BOX], link_write, on_message,
                    (void *)(uintptr_t)BOX);
    uint32_t now = clock_ms(), tick = now, last_rfid = now, last_status = now;
    bt_session_start(&links[READER], now);
    bt_session_start(&links[BOX], now);
    set_sleep_mode(SLEEP_MODE_IDLE);
    for (;;) {
        now = clock_ms();
        for (uint8_t port = 0; port < 2; port++) {
            int c;
            while ((c = uart_getc(port)) >= 0) bt_session_feed(&links[port], (uint8_t)c, now);
        }
        if (now != tick) {
            tick = now;
            bt_session_poll(&links[READER], now);
            bt_session_poll(&links[BOX], now);
            handle_keys();
            display_poll();
            if ((uint32_t)(now - last_rfid) >= RFID_POLL_MS) {
                last_rfid = now;
                poll_reader(now);
            }
            if (!antenna_ok && links[READER].state == BT_READY && (uint32_t)(now - last_status) >= 1000u) {
                last_status = now;                /* not OK: repeat the status once a second (§8.3) */
                send_reader_status(now);
            }
        }
        cli();                                    /* sleep until the next tick or byte, without a lost wake-up */
        if (!uart_rx_pending()) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
