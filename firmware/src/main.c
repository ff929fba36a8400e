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
#include "feedback.h"
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
/* Receive buffers: the box link takes every v1 frame (SHOW_AUCTION of a long auction); the reader link gets
 * no more than an ERROR with a 200-byte text (a 214-byte frame), and a longer frame is rejected as oversize
 * (docs/protocol.md §3.2) */
#define READER_RX 256u
static uint8_t reader_rx[READER_RX], box_rx[BT_MAX_ENCODED];
/* Event queues, packed (session.h): 64 CARD_READs of a 7-byte UID (14-byte payload) and a few
 * READER_STATUS; 64 CALL_PRESSED (6 bytes, the box's largest event). §5.5 asks for 64 events. */
static uint8_t reader_queue[BT_QUEUE * BT_QUEUE_ENTRY(14u) + 4u * BT_QUEUE_ENTRY(7u)];
static uint8_t box_queue[BT_QUEUE * BT_QUEUE_ENTRY(6u)];
static uint8_t reader_status;               /* BT_RS_*: what READER_STATUS last said (or will say) */
static struct {
    uint8_t prevent;              /* SET_MODE: 1 PREVENT (the host may refuse a call), 0 FLAG */
    uint16_t undo_ms;             /* SET_MODE: the undo window after a call (0: no undo) */
    uint8_t last_call;            /* the last call sent, while it may still be undone (0xFF: none) */
    uint32_t last_at;
    uint8_t director_due;         /* the Director key was pressed and its DIRECTOR_CALL is not queued yet */
    uint32_t director_at;
} box = {0, 0, 0xFFu, 0, 0, 0};

/* The tags in each zone's field (or read and not yet handed to the link): each card is reported once, when the
 * session's queue takes its CARD_READ. A full queue holds the tag back (reported stays 0) and the next round
 * tries again: a tag is never marked reported without its event queued, and a read tag is kept until it is.
 * A tag of a hand lying on the play antenna is marked reported without a CARD_READ: it was not played. */
typedef struct {
    rfid_uid u;
    uint8_t absent, reported;
    uint32_t at;                  /* when it was first read (the CARD_READ's ts) */
} seen_tag;

static seen_tag play_tags[RFID_TAGS_MAX], dummy_tags[RFID_DUMMY_TAGS_MAX];
static struct zone {
    seen_tag *t;
    uint8_t cap, n, bt_zone, collided;    /* collided: rounds in a row ended in an unresolved collision */
} zones[RFID_READERS] = {{play_tags, RFID_TAGS_MAX, 0, BT_ZONE_PLAY, 0}, {dummy_tags, RFID_DUMMY_TAGS_MAX, 0, BT_ZONE_DUMMY, 0}};

/* Hands read at the table (docs/hardware.md "Reading the hands"): the player lays the hand taken out of the
 * board, squared, on the play antenna. A round that reads HAND_MIN or more tags at once is a hand, not cards
 * played (a trick leaves at most a card or two on the antenna); the same tags read again in HAND_STABLE more
 * rounds in a row are sent as one HAND_READ in parts of HAND_PART tags (each part fits a queue entry), every part naming the
 * hand by its time and its place (part k of n): a part sent twice (a retransmission, a resumed link) is one
 * part to the host. The hand is sent once while it lies there; lifted and laid again, it is read again. */
#define HAND_MIN 5u
#define HAND_STABLE 2u
#define HAND_PART 4u
static struct {
    uint32_t sig, at;             /* the tags of the last hand round (order-free), when they were first stable */
    uint8_t rounds, next, parts;  /* rounds with the same tags; next part to queue (parts: all sent) */
} hand;

static void link_write(void *ctx, const uint8_t *data, size_t n) { uart_write((uint8_t)(uintptr_t)ctx, data, n); }

static void send_reader_status(uint32_t now) {
    uint8_t p[7];
    uint8_t antennas = (uint8_t)((mfrc522_healthy(RFID_PLAY) ? 1u << BT_ZONE_PLAY : 0u) |
                                 (mfrc522_healthy(RFID_DUMMY) ? 1u << BT_ZONE_DUMMY : 0u));
    bt_enc_reader_status(p, reader_status, antennas, (uint8_t)(zones[0].n + zones[1].n), now);
    bt_session_send(&links[READER], BT_READER_STATUS, p, 7, now);
}

static void send_unit_status(uint32_t now) {
    uint8_t p[9];
    uint32_t resets = mfrc522_stats.reinits > RFID_READERS ? mfrc522_stats.reinits - RFID_READERS : 0u;   /* the boot's set-ups are not */
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
            feedback_refused();
            break;
        default: break;
        }
    }
}

/* The player's acknowledgement blinks when the host acknowledged the card or the call, not when the unit
 * queued it: a queued event is not yet the host's (the cable may be out, the host down), and the player who saw
 * the blink may lift the card or walk away; the link's ack means the host has it (once, whatever was resent).
 * The host judges it afterwards: a call it refuses in prevent mode (REFUSE_CALL) blinks and beeps three times. */
static void on_acked(void *ctx, uint8_t type) {
    (void)ctx;
    if (type == BT_CARD_READ || type == BT_CALL_PRESSED || type == BT_UNDO || type == BT_STOP_CARD ||
        type == BT_DIRECTOR_CALL)
        feedback_taken();
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

static uint8_t same_uid(const rfid_uid *a, const rfid_uid *b) {
    if (a->len != b->len) return 0;
    for (uint8_t i = 0; i < a->len; i++)
        if (a->uid[i] != b->uid[i]) return 0;
    return 1;
}

/* the hand lying on the play antenna, once its tags were the same for HAND_STABLE rounds: queue its parts
 * (those the queue has no room for now go at the next round, as long as the same hand lies there) */
static void hand_round(const rfid_round *r, uint32_t now) {
    /* the round's tags, order-free: a sum and an XOR of a 16-bit rotate-xor hash of each UID (a bitwise CRC-32
     * of 13 UIDs would take 1.4 ms of CPU) */
    uint16_t sum = r->n, mix = 0;
    for (uint8_t j = 0; j < r->n; j++) {
        uint16_t h = 0x1D0Fu;
        for (uint8_t i = 0; i < r->tag[j].len; i++) h = (uint16_t)(((h << 3) | (h >> 13)) ^ r->tag[j].uid[i]);
        sum = (uint16_t)(sum + h);
        mix ^= h;
    }
    uint32_t sig = ((uint32_t)mix << 16) | sum;
    if (r->collision || r->too_many || sig != hand.sig) {
        hand.sig = r->collision || r->too_many ? 0u : sig;
        hand.rounds = hand.next = hand.parts = 0;
        return;
    }
    if (hand.rounds < HAND_STABLE) hand.rounds++;
    if (hand.rounds < HAND_STABLE) return;
    if (!hand.parts) {                            /* newly stable: name the hand */
        hand.parts = (uint8_t)((r->n + HAND_PART - 1u) / HAND_PART);
        hand.next = 0;
        hand.at = now;
    }
    while (hand.next < hand.parts) {
        uint8_t p[BT_EVENT_MAX], first = (uint8_t)(hand.next * HAND_PART);
        uint8_t left = (uint8_t)(r->n - first), count = left < HAND_PART ? left : (uint8_t)HAND_PART;
        uint8_t len = (uint8_t)bt_enc_hand_read(p, BT_ZONE_HAND, hand.at, hand.next, hand.parts, count);
        for (uint8_t j = first; j < first + count; j++) {   /* a round reads the same tags in the same order */
            p[len++] = r->tag[j].len;
            for (uint8_t i = 0; i < r->tag[j].len; i++) p[len++] = r->tag[j].uid[i];
        }
        if (bt_session_send(&links[READER], BT_HAND_READ, p, len, now) < 0) break;   /* back-pressure */
        hand.next++;
    }
}

static void reader_round(struct zone *z, const rfid_round *r, uint32_t now) {
    uint8_t in_round[RFID_TAGS_MAX] = {0};
    for (uint8_t k = 0; k < z->n; k++) {
        uint8_t there = 0;
        for (uint8_t j = 0; j < r->n && !there; j++) {
            there = same_uid(&r->tag[j], &z->t[k].u);
            if (there) in_round[j] = 1;
        }
        if (there) z->t[k].absent = 0;
        else if (z->t[k].absent < 255u) z->t[k].absent++;
    }
    for (uint8_t k = 0; k < z->n;) {              /* gone (a tag not reported yet stays until it is) */
        if (z->t[k].reported && z->t[k].absent >= RFID_ABSENT_POLLS) z->t[k] = z->t[--z->n];
        else k++;
    }
    for (uint8_t j = 0; j < r->n; j++) {
        if (in_round[j] || z->n >= z->cap) continue;   /* a full table: read again next round */
        z->t[z->n].u = r->tag[j];
        z->t[z->n].absent = 0;
        z->t[z->n].reported = 0;
        z->t[z->n].at = now;
        z->n++;
    }
    if (z->bt_zone == BT_ZONE_PLAY && r->n >= HAND_MIN) {   /* a hand, not cards played */
        for (uint8_t k = 0; k < z->n; k++)
            if (!z->t[k].absent) z->t[k].reported = 1;
        hand_round(r, now);
    } else {
        if (z->bt_zone == BT_ZONE_PLAY) hand.sig = 0;   /* the hand lifted: the next one laid is read anew */
        for (uint8_t k = 0; k < z->n; k++) {
            if (z->t[k].reported) continue;
            uint8_t p[BT_EVENT_MAX];
            uint16_t len = bt_enc_card_read(p, z->bt_zone, z->t[k].at, -128, z->t[k].u.uid, z->t[k].u.len);
            if (bt_session_send(&links[READER], BT_CARD_READ, p, (uint8_t)len, now) < 0) break;   /* back-pressure */
            z->t[k].reported = 1;
        }
    }
    z->collided = r->collision ? (uint8_t)(z->collided < 255u ? z->collided + 1u : 255u) : 0u;
}

static void update_reader_status(uint32_t now, uint8_t too_many) {
    uint8_t status = !mfrc522_healthy(RFID_PLAY) || !mfrc522_healthy(RFID_DUMMY) ? BT_RS_ANTENNA_FAULT
                     : too_many ? BT_RS_TOO_MANY_TAGS
                     : zones[0].collided >= 3u || zones[1].collided >= 3u ? BT_RS_COLLISION : BT_RS_OK;
    if (status == reader_status) return;
    reader_status = status;
    show_reader_problem(status);
    if (links[READER].state == BT_READY) send_reader_status(now);
}

static bidding bid;

/* the Director key's DIRECTOR_CALL, kept until the queue takes it (a full queue: the next tick tries again);
 * a second press before then is the same call */
static void send_director_call(uint32_t now) {
    uint8_t p[4];
    if (!box.director_due) return;
    if (bt_session_send(&links[BOX], BT_DIRECTOR_CALL, p, (uint8_t)bt_enc_director_call(p, box.director_at), now) < 0)
        return;
    box.director_due = 0;
    /* until the host's SHOW_ERROR says whether the call is on the director's list ("DIRECTOR CALLED") */
    static const uint8_t calling[] = {16, 'C', 'A', 'L', 'L', 'I', 'N', 'G', ' ', 'D', 'I', 'R', 'E', 'C', 'T', 'O', 'R'};
    display_message(calling);
}

static void box_key(uint8_t key, uint32_t at) {
    uint8_t p[6];
    if (key == KEY_EARLIER || key == KEY_LATER) {
        display_scroll(key == KEY_EARLIER);
    } else if (key == KEY_DIRECTOR) {
        if (!box.director_due) box.director_at = at;
        box.director_due = 1;
        send_director_call(at);
    } else if (key == KEY_STOP) {
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
            uint8_t p[6];
            bt_enc_call_pressed(p, call, alert, at);
            if (bt_session_send(&links[BOX], BT_CALL_PRESSED, p, 6, at) < 0) {
                /* the queue is full (the host has taken none of the last 64 events): the call is not taken,
                 * and the player is told so rather than shown a call that never leaves the box */
                static const uint8_t not_sent[] = {20, 'C', 'A', 'L', 'L', ' ', 'N', 'O', 'T', ' ', 'S', 'E', 'N',
                                                   'T', ':', ' ', 'A', 'G', 'A', 'I', 'N'};
                display_keying(0, 0, 0xFFu);
                display_message(not_sent);
                continue;
            }
            display_keying(0, alert, call);
            box.last_call = call;
            box.last_at = at;
        }
    }
}

int main(void) {
    identity_load(&id);
    clock_init();
    uart_init();
    keys_init();
    feedback_init();
    sei();
    mfrc522_init();
    display_init();
    bt_session_init(&links[READER], BT_KIND_SEAT_READER, BT_CAP_DUMMY_ZONE | BT_CAP_HAND_READ, session_id_for(id.reader_serial), id.reader_serial,
                    FIRMWARE_VERSION, reader_rx, sizeof reader_rx, reader_queue, sizeof reader_queue,
                    link_write, on_message,
                    (void *)(uintptr_t)READER);
    bt_session_init(&links[BOX], BT_KIND_BIDDING_BOX, BT_CAP_ALERT | BT_CAP_DISPLAY | BT_CAP_PREVENT_MODE | BT_CAP_UNDO | BT_CAP_STOP_CARD | BT_CAP_DIRECTOR_KEY, session_id_for(id.box_serial), id.box_serial,
                    FIRMWARE_VERSION, box_rx, sizeof box_rx, box_queue, sizeof box_queue, link_write,
                    on_message,
                    (void *)(uintptr_t)BOX);
    links[READER].acked = links[BOX].acked = on_acked;
    uint32_t now = clock_ms(), tick = now, last_status = now;
    uint8_t too_many[RFID_READERS] = {0}, first_reader = 0;
    bt_session_start(&links[READER], now);
    bt_session_start(&links[BOX], now);
    set_sleep_mode(SLEEP_MODE_IDLE);
    /* the watchdog: 500 ms without a main-loop turn (its longest stretch is a few ms, docs/PERFORMANCE.md;
     * a 256-byte UART ring fills in 5 ms at 500000 Bd) resets the unit */
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
            send_director_call(now);
            display_poll();
            /* one short step a tick per reader; after a step that went to the chip's FIFO (a frame sent or an
             * answer read: a dozen register accesses) the other reader waits for the next tick and goes
             * first then, so a tick never holds two such steps (docs/PERFORMANCE.md, the main-loop gap) */
            for (uint8_t i = 0; i < RFID_READERS; i++) {
                uint8_t k = (uint8_t)(first_reader ^ i);
                uint16_t ops = mfrc522_spi_ops;
                const rfid_round *round = mfrc522_poll(k, now);
                if (round) {
                    reader_round(&zones[k], round, now);
                    too_many[k] = round->too_many;
                    update_reader_status(now, too_many[0] | too_many[1]);
                } else if (!mfrc522_healthy(k) && reader_status != BT_RS_ANTENNA_FAULT && (uint32_t)now > 2000u) {
                    update_reader_status(now, 0);
                }
                if ((uint16_t)(mfrc522_spi_ops - ops) > 2u) {
                    first_reader = (uint8_t)(k ^ 1u);
                    break;
                }
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
