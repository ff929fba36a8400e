/* Seat unit firmware: an MFRC522 card reader and a bidding box at one seat, each speaking the bridgetable
 * wire protocol (docs/protocol.md) on its own UART, as its own device (seat reader, bidding box). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
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
#include "update.h"

enum { READER = 0, BOX = 1 };

/* The fuses are in the boot loader's ELF (firmware/boot/boot.c): it is what a programmer flashes first. */

/* The stack's high-water mark: before anything runs, the RAM between the end of the variables (_end) and the
 * top of the stack is painted with 0xC5; the lowest address no longer holding it is the deepest the stack
 * went. (The known avr-libc start-up pattern, in .init1: no stack, no registers the start-up relies on.) */
extern uint8_t _end;
void paint_stack(void) __attribute__((naked, used, section(".init1")));
void paint_stack(void) {
    __asm volatile("    ldi r30, lo8(_end)\n"
                   "    ldi r31, hi8(_end)\n"
                   "    ldi r24, 0xC5\n"
                   "    ldi r25, hi8(__stack)\n"
                   "    rjmp 2f\n"
                   "1:  st Z+, r24\n"
                   "2:  cpi r30, lo8(__stack)\n"
                   "    cpc r31, r25\n"
                   "    brlo 1b\n"
                   "    breq 1b\n" ::);
}

static uint16_t stack_peak(void) {
    const uint8_t *p = &_end;
    while (p <= (const uint8_t *)RAMEND && *p == 0xC5) p++;
    return (uint16_t)((const uint8_t *)RAMEND + 1 - p);
}

/* The reset cause (MCUSR: WDRF, BORF, EXTRF, PORF), read before anything else. After a watchdog reset the
 * watchdog stays on with its shortest time-out (datasheet §12.5: WDRF overrides WDE): it is switched off at
 * once, before the C start-up's clearing of .bss could outlast it, and on again, deliberately, in main. */
uint8_t reset_cause __attribute__((section(".noinit")));
void early_reset_cause(void) __attribute__((naked, used, section(".init3")));
void early_reset_cause(void) {
    reset_cause = MCUSR | GPIOR0;                 /* GPIOR0: the cause the boot loader read (and cleared) */
    GPIOR0 = 0;
    MCUSR = 0;
    wdt_disable();
}

static identity id;
static bt_session links[2];
static uint8_t rx_buf[2][BT_MAX_ENCODED];   /* full-size receive buffers: every v1 frame is accepted */
/* Event queues, packed (session.h): 64 CARD_READs of a 7-byte UID (14-byte payload) and a few
 * READER_STATUS; 64 CALL_PRESSED (6 bytes, the box's largest event). §5.5 asks for 64 events. */
static uint8_t reader_queue[BT_QUEUE * BT_QUEUE_ENTRY(14u) + 4u * BT_QUEUE_ENTRY(7u)];
static uint8_t box_queue[BT_QUEUE * BT_QUEUE_ENTRY(6u)];
static uint8_t reader_status;               /* BT_RS_*: what READER_STATUS last said (or will say) */
static uint8_t collided_rounds;             /* rounds in a row that ended in an unresolved collision */
static struct {
    uint8_t prevent;              /* SET_MODE: 1 PREVENT (the host may refuse a call), 0 FLAG */
    uint16_t undo_ms;             /* SET_MODE: the undo window after a call (0: no undo) */
    uint8_t last_call;            /* the last call sent, while it may still be undone (0xFF: none) */
    uint32_t last_at;
} box = {0, 0, 0xFFu, 0};

/* The tags in the field (or read and not yet handed to the link): each is reported once, when the session's
 * queue takes its CARD_READ. A full queue holds the tag back (reported stays 0) and the next round tries
 * again: a tag is never marked reported without its event queued, and a read tag is kept until it is. */
static struct {
    rfid_uid u;
    uint8_t absent, reported;
    uint32_t at;                  /* when it was first read (the CARD_READ's ts) */
} seen[RFID_TAGS_MAX];
static uint8_t nseen;

static void link_write(void *ctx, const uint8_t *data, size_t n) { uart_write((uint8_t)(uintptr_t)ctx, data, n); }

static void send_reader_status(uint32_t now) {
    uint8_t p[7];
    bt_enc_reader_status(p, reader_status, mfrc522_healthy() ? 1u : 0u, nseen, now);
    bt_session_send(&links[READER], BT_READER_STATUS, p, 7, now);
}

static void send_unit_status(uint32_t now) {
    uint8_t p[9];
    uint32_t resets = mfrc522_stats.reinits ? mfrc522_stats.reinits - 1u : 0u;   /* the boot's set-up is not one */
    bt_enc_unit_status(p, (uint8_t)(reset_cause & 0x1Fu), stack_peak(), resets > 0xFFFFu ? 0xFFFFu : (uint16_t)resets,
                       now);
    bt_session_send(&links[READER], BT_UNIT_STATUS, p, 9, now);
}

static void on_message(void *ctx, uint8_t type, const uint8_t *p, uint16_t n) {
    (void)n;
    uint8_t port = (uint8_t)(uintptr_t)ctx;
    if (type == BT_WELCOME) {
        identity_store_binding(&id, p[7], bt_get16(p + 8));
        if (port == READER) {
            send_unit_status(clock_ms());
            send_reader_status(clock_ms());
        }
    } else if (type == BT_BIND) {
        identity_store_binding(&id, p[0], bt_get16(p + 1));
    } else if (type == BT_ENTER_BOOTLOADER && port == READER) {
        update_request(p, links[READER].session_id, clock_ms());
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

static void show_reader_problem(uint8_t status) {
    static const char *const text[] = {"", "CARD READER FAULT", "CARDS COLLIDE: LIFT", "TOO MANY CARDS"};
    uint8_t field[1 + 21];
    const char *t = status < 4 ? text[status] : "";
    uint8_t n = 0;
    while (t[n]) field[1 + n] = (uint8_t)t[n], n++;
    field[0] = n;
    display_message(field);                       /* on the bidding box's screen, line 7 */
}

static void reader_round(const rfid_round *r, uint32_t now) {
    uint8_t in_round[RFID_TAGS_MAX] = {0};
    for (uint8_t k = 0; k < nseen; k++) {
        uint8_t there = 0;
        for (uint8_t j = 0; j < r->n && !there; j++) {
            there = r->tag[j].len == seen[k].u.len;
            for (uint8_t i = 0; there && i < seen[k].u.len; i++) there = r->tag[j].uid[i] == seen[k].u.uid[i];
            if (there) in_round[j] = 1;
        }
        if (there) seen[k].absent = 0;
        else if (seen[k].absent < 255u) seen[k].absent++;
    }
    for (uint8_t k = 0; k < nseen;) {             /* gone (a tag not reported yet stays until it is) */
        if (seen[k].reported && seen[k].absent >= RFID_ABSENT_POLLS) seen[k] = seen[--nseen];
        else k++;
    }
    for (uint8_t j = 0; j < r->n; j++) {
        if (in_round[j] || nseen >= RFID_TAGS_MAX) continue;   /* a full table: read again next round */
        seen[nseen].u = r->tag[j];
        seen[nseen].absent = 0;
        seen[nseen].reported = 0;
        seen[nseen].at = now;
        nseen++;
    }
    for (uint8_t k = 0; k < nseen; k++) {
        if (seen[k].reported) continue;
        uint8_t p[BT_EVENT_MAX];
        uint16_t len = bt_enc_card_read(p, BT_ZONE_PLAY, seen[k].at, -128, seen[k].u.uid, seen[k].u.len);
        if (bt_session_send(&links[READER], BT_CARD_READ, p, (uint8_t)len, now) < 0) break;   /* back-pressure */
        seen[k].reported = 1;
    }
    collided_rounds = r->collision ? (uint8_t)(collided_rounds < 255u ? collided_rounds + 1u : 255u) : 0u;
}

static void update_reader_status(uint32_t now, uint8_t too_many) {
    uint8_t status = !mfrc522_healthy() ? BT_RS_ANTENNA_FAULT
                     : too_many ? BT_RS_TOO_MANY_TAGS
                     : collided_rounds >= 3u ? BT_RS_COLLISION : BT_RS_OK;
    if (status == reader_status) return;
    reader_status = status;
    show_reader_problem(status);
    if (links[READER].state == BT_READY) send_reader_status(now);
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
    mfrc522_init();
    display_init();
    bt_session_init(&links[READER], BT_KIND_SEAT_READER, 0, session_id_for(id.reader_serial), id.reader_serial,
                    FIRMWARE_VERSION, rx_buf[READER], sizeof rx_buf[READER], reader_queue, sizeof reader_queue,
                    link_write, on_message,
                    (void *)(uintptr_t)READER);
    bt_session_init(&links[BOX], BT_KIND_BIDDING_BOX, BT_CAP_ALERT | BT_CAP_DISPLAY | BT_CAP_PREVENT_MODE | BT_CAP_UNDO | BT_CAP_STOP_CARD, session_id_for(id.box_serial), id.box_serial,
                    FIRMWARE_VERSION, rx_buf[BOX], sizeof rx_buf[BOX], box_queue, sizeof box_queue, link_write,
                    on_message,
                    (void *)(uintptr_t)BOX);
    uint32_t now = clock_ms(), tick = now, last_status = now;
    bt_session_start(&links[READER], now);
    bt_session_start(&links[BOX], now);
    set_sleep_mode(SLEEP_MODE_IDLE);
    /* the watchdog: 500 ms without a main-loop turn (its longest stretch is a few ms, docs/PERFORMANCE.md;
     * a UART ring full at 115200 Bd drains in 22 ms) resets the unit */
    wdt_enable(WDTO_500MS);
    for (;;) {
        wdt_reset();
        now = clock_ms();
        for (uint8_t port = 0; port < 2; port++) {
            int c;
            while ((c = uart_getc(port)) >= 0) bt_session_feed(&links[port], (uint8_t)c, now);
        }
        if (now != tick) {
            tick = now;
            bt_session_poll(&links[READER], now);
            bt_session_poll(&links[BOX], now);
            update_poll(now);
            handle_keys();
            display_poll();
            rfid_round round;
            if (mfrc522_poll(now, &round)) {      /* one short step a tick: the reader never blocks the loop */
                reader_round(&round, now);
                update_reader_status(now, round.too_many);
            } else if (!mfrc522_healthy() && reader_status != BT_RS_ANTENNA_FAULT && (uint32_t)now > 2000u) {
                update_reader_status(now, 0);
            }
            if (reader_status != BT_RS_OK && links[READER].state == BT_READY &&
                (uint32_t)(now - last_status) >= 1000u) {
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
