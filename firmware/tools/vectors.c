/* Native CLI over the firmware's protocol code, for the golden vectors (firmware/vectors/frames.json).
 * Reads commands on stdin, one per line, and answers one or more lines each:
 *   decode HEX                      -> per frame ended in HEX: "frame type=T flags=F seq=S ack=A payload=HEX
 *                                      msg=OK|UNKNOWN_MESSAGE|MALFORMED_PAYLOAD" or "error KIND"; then "end"
 *   msg NAME FLAGS SEQ ACK ARGS...  -> the wire bytes (COBS + 0x00) of that message as the firmware sends it
 *     hello KIND CAPS SESSION RX_NEXT SERIAL FIRMWARE | heartbeat CLOCK | ack | nack SEQ CODE | error CODE TEXT
 *     card_read ZONE TS RSSI UID | reader_status STATUS ANTENNAS TAGS TS | unit_status CAUSE PEAK RESETS TS |
 *     call_pressed CALL ALERT TS
 *     undo CALL TS | stop_card TS | director_call TS
 *   crc32 HEX / cobs HEX            -> the CRC-32 (hex) / the COBS encoding (hex) of HEX
 * and the device session (firmware/protocol/session.c), driven step by step with the caller's clock; each
 * answers "out HEX" (the bytes the device wrote, maybe none), "msg TYPE PAYLOAD" per message delivered to
 * the application, then "end":
 *   session open KIND SESSION_ID SERIAL | session start NOW | session feed HEX NOW | session poll NOW
 *   session send TYPE PAYLOAD NOW   (also "result ok|full")   | session state (also "state ..." counters)
 * Numbers are decimal or 0x-prefixed hex. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/cobs.h"
#include "../protocol/crc32.h"
#include "../protocol/frame.h"
#include "../protocol/messages.h"
#include "../protocol/session.h"

static uint8_t wire[BT_MAX_ENCODED + 8], scratch[BT_MAX_FRAME + 8], payload[BT_MAX_PAYLOAD + 8];

static void print_hex(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
}

static long hex_to_bytes(const char *hex, uint8_t *out, size_t max) {
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > max) return -1;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)hex[i])) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return (long)(n / 2);
}


static unsigned long num(const char *s) { return s ? strtoul(s, NULL, 0) : 0ul; }

/* ---- the device session, driven from stdin ---- */
static bt_session sess;
static uint8_t sess_rx[BT_MAX_ENCODED];
static char sess_serial[40];
static uint8_t sess_out[1 << 16];
static size_t sess_out_len;

static void sess_write(void *ctx, const uint8_t *data, size_t n) {
    (void)ctx;
    for (size_t i = 0; i < n && sess_out_len < sizeof sess_out; i++) sess_out[sess_out_len++] = data[i];
}

static void sess_deliver(void *ctx, uint8_t type, const uint8_t *payload, uint16_t n) {
    (void)ctx;
    printf("msg %u ", type);
    print_hex(payload, n);
    putchar('\n');
}

static uint8_t sess_queue[BT_QUEUE * BT_QUEUE_ENTRY(BT_EVENT_MAX)];   /* 64 events of any size */

static void session_command(char **argv, int argc) {
    static uint8_t data[8192];
    const char *op = argv[1];
    if (strcmp(op, "open") && !sess.write) {
        puts("usage session open KIND SESSION_ID SERIAL first");
    } else if (!strcmp(op, "open") && argc >= 5) {
        snprintf(sess_serial, sizeof sess_serial, "%s", argv[4]);
        bt_session_init(&sess, (uint8_t)num(argv[2]), 0, (uint32_t)num(argv[3]), sess_serial, "vectors-1",
                        sess_rx, sizeof sess_rx, sess_queue, sizeof sess_queue, sess_write, sess_deliver, NULL);
    } else if (!strcmp(op, "start") && argc >= 3) {
        bt_session_start(&sess, (uint32_t)num(argv[2]));
    } else if (!strcmp(op, "feed") && argc >= 4) {
        long n = hex_to_bytes(argv[2], data, sizeof data);
        for (long i = 0; i < n; i++) bt_session_feed(&sess, data[i], (uint32_t)num(argv[3]));
    } else if (!strcmp(op, "poll") && argc >= 3) {
        bt_session_poll(&sess, (uint32_t)num(argv[2]));
    } else if (!strcmp(op, "send") && argc >= 5) {
        long n = hex_to_bytes(argv[3], data, BT_EVENT_MAX);
        int r = n < 0 ? -1 : bt_session_send(&sess, (uint8_t)num(argv[2]), data, (uint8_t)n, (uint32_t)num(argv[4]));
        printf("result %s\n", r == 0 ? "ok" : "full");
    } else if (!strcmp(op, "state")) {
        printf("state %u tx_next=%u rx_next=%u in_flight=%u queued=%u handshakes=%lu resumes=%lu retransmits=%lu "
               "links_lost=%lu nacks_sent=%lu frames=%lu crc_errors=%lu\n", sess.state, sess.tx_next, sess.rx_next,
               sess.in_flight, sess.count, (unsigned long)sess.stats.handshakes, (unsigned long)sess.stats.resumes,
               (unsigned long)sess.stats.retransmits, (unsigned long)sess.stats.links_lost,
               (unsigned long)sess.stats.nacks_sent, (unsigned long)sess.decoder.stats.frames,
               (unsigned long)sess.decoder.stats.crc_errors);
    } else {
        puts("usage session open KIND SESSION_ID SERIAL | start NOW | feed HEX NOW | poll NOW | send TYPE HEX NOW "
             "| state");
    }
    printf("out ");
    print_hex(sess_out, sess_out_len);
    sess_out_len = 0;
    puts("\nend");
}

static void decode(const char *hex) {
    static uint8_t data[8192], buf[BT_MAX_ENCODED];
    long n = hex_to_bytes(hex, data, sizeof data);
    if (n < 0) {
        puts("usage bad hex");
        return;
    }
    bt_decoder d;
    bt_decoder_init(&d, buf, sizeof buf, BT_MAX_PAYLOAD);
    for (long i = 0; i < n; i++) {
        bt_rx_result r = bt_decoder_feed(&d, data[i]);
        if (r == BT_RX_NONE) continue;
        if (r != BT_RX_FRAME) {
            printf("error %s\n", bt_rx_result_name(r));
            continue;
        }
        const bt_frame *f = &d.frame;
        uint16_t code = bt_msg_check(f->type, f->payload, f->length);
        printf("frame type=0x%02x flags=0x%02x seq=%u ack=%u payload=", f->type, f->flags, f->seq, f->ack);
        print_hex(f->payload, f->length);
        printf(" msg=%s\n", code == 0 ? "OK" : code == BT_E_UNKNOWN_MESSAGE ? "UNKNOWN_MESSAGE" : "MALFORMED_PAYLOAD");
    }
    puts("end");
}

static int encode_message(char *name, char **a, int argc) {
    uint16_t n;
    uint8_t type;
#define NEED(k) do { if (argc < (k)) return -1; } while (0)
    if (!strcmp(name, "hello")) {
        NEED(6);
        type = BT_HELLO;
        n = bt_enc_hello(payload, (uint8_t)num(a[0]), (uint32_t)num(a[1]), (uint32_t)num(a[2]), (uint8_t)num(a[3]),
                         a[4], a[5]);
    } else if (!strcmp(name, "heartbeat")) {
        NEED(1);
        type = BT_HEARTBEAT;
        n = bt_enc_heartbeat(payload, (uint32_t)num(a[0]));
    } else if (!strcmp(name, "ack")) {
        type = BT_ACK;
        n = 0;
    } else if (!strcmp(name, "nack")) {
        NEED(2);
        type = BT_NACK;
        n = bt_enc_nack(payload, (uint8_t)num(a[0]), (uint16_t)num(a[1]));
    } else if (!strcmp(name, "error")) {
        NEED(2);
        type = BT_ERROR;
        n = bt_enc_error(payload, (uint16_t)num(a[0]), a[1]);
    } else if (!strcmp(name, "card_read")) {
        NEED(4);
        uint8_t uid[BT_UID_MAX];
        long k = hex_to_bytes(a[3], uid, sizeof uid);
        if (k < 0) return -1;
        type = BT_CARD_READ;
        n = bt_enc_card_read(payload, (uint8_t)num(a[0]), (uint32_t)num(a[1]), (int8_t)strtol(a[2], NULL, 0), uid,
                             (uint8_t)k);
    } else if (!strcmp(name, "reader_status")) {
        NEED(4);
        type = BT_READER_STATUS;
        n = bt_enc_reader_status(payload, (uint8_t)num(a[0]), (uint8_t)num(a[1]), (uint8_t)num(a[2]),
                                 (uint32_t)num(a[3]));
    } else if (!strcmp(name, "unit_status")) {
        NEED(4);
        type = BT_UNIT_STATUS;
        n = bt_enc_unit_status(payload, (uint8_t)num(a[0]), (uint16_t)num(a[1]), (uint16_t)num(a[2]),
                               (uint32_t)num(a[3]));
    } else if (!strcmp(name, "call_pressed")) {
        NEED(3);
        type = BT_CALL_PRESSED;
        n = bt_enc_call_pressed(payload, (uint8_t)num(a[0]), (uint8_t)num(a[1]), (uint32_t)num(a[2]));
    } else if (!strcmp(name, "undo")) {
        NEED(2);
        type = BT_UNDO;
        n = bt_enc_undo(payload, (uint8_t)num(a[0]), (uint32_t)num(a[1]));
    } else if (!strcmp(name, "stop_card")) {
        NEED(1);
        type = BT_STOP_CARD;
        n = bt_enc_stop_card(payload, (uint32_t)num(a[0]));
    } else if (!strcmp(name, "director_call")) {
        NEED(1);
        type = BT_DIRECTOR_CALL;
        n = bt_enc_director_call(payload, (uint32_t)num(a[0]));
    } else {
        return -1;
    }
    return (int)((unsigned)type << 16 | n);
}

int main(void) {
    static char line[20000];
    while (fgets(line, sizeof line, stdin)) {
        char *argv[16];
        int argc = 0;
        for (char *t = strtok(line, " \t\r\n"); t && argc < 16; t = strtok(NULL, " \t\r\n")) argv[argc++] = t;
        if (argc == 0) continue;
        if (!strcmp(argv[0], "session") && argc >= 2) {
            session_command(argv, argc);
        } else if (!strcmp(argv[0], "decode") && argc == 2) {
            decode(argv[1]);
        } else if (!strcmp(argv[0], "msg") && argc >= 5) {
            int r = encode_message(argv[1], argv + 5, argc - 5);
            if (r < 0) {
                puts("usage bad message");
            } else {
                bt_frame f = {BT_VERSION, (uint8_t)(r >> 16), (uint8_t)num(argv[2]), (uint8_t)num(argv[3]),
                              (uint8_t)num(argv[4]), (uint16_t)(r & 0xFFFF), payload};
                print_hex(wire, bt_frame_encode(&f, scratch, wire));
                putchar('\n');
            }
        } else if (!strcmp(argv[0], "crc32") && argc == 2) {
            long n = hex_to_bytes(argv[1], scratch, sizeof scratch);
            printf("%08lx\n", n < 0 ? 0ul : (unsigned long)bt_crc32(scratch, (size_t)n));
        } else if (!strcmp(argv[0], "cobs") && argc == 2) {
            long n = hex_to_bytes(argv[1], scratch, sizeof scratch);
            if (n < 0) puts("usage bad hex");
            else {
                print_hex(wire, cobs_encode(scratch, (size_t)n, wire));
                putchar('\n');
            }
        } else {
            puts("usage decode HEX | msg NAME FLAGS SEQ ACK ARGS... | crc32 HEX | cobs HEX");
        }
        fflush(stdout);
    }
    return 0;
}
