/* The device side of a link (docs/protocol.md §5-§7, §11): handshake and resume, sequence numbers,
 * cumulative acks, go-back-N retransmission, heartbeats, link loss. Sans-I/O: bytes in via
 * bt_session_feed, bytes out via the write callback, time passed in as milliseconds. */
#ifndef BT_SESSION_H
#define BT_SESSION_H
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "messages.h"

#ifndef BT_QUEUE
#define BT_QUEUE 64u          /* events kept while the link is down (§5.5: at least 64) */
#endif
/* The event queue is a byte ring the caller provides, each event packed as type, length, payload: a queue
 * for BT_QUEUE events of payload P takes BT_QUEUE * BT_QUEUE_ENTRY(P) bytes. */
#define BT_QUEUE_ENTRY(payload) (2u + (payload))
#ifndef BT_EVENT_MAX
#define BT_EVENT_MAX 40u      /* largest event payload a seat unit sends: a HAND_READ part of four 7-byte UIDs */
#endif
#define BT_TX_MAX_PAYLOAD 80u /* HELLO with 32-character serial and firmware strings is the largest frame */
#define BT_WINDOW 8u
#define BT_HELLO_MS 500u
#define BT_REFUSED_RETRY_MS 60000u   /* REFUSED: HELLO again after this long (the host may have been changed) */

enum bt_state { BT_IDLE = 0, BT_CONNECTING, BT_READY, BT_LOST, BT_REFUSED };

typedef void (*bt_write_fn)(void *ctx, const uint8_t *data, size_t n);
/* An application message from the host (checked), or BT_WELCOME when a handshake completed. */
typedef void (*bt_deliver_fn)(void *ctx, uint8_t type, const uint8_t *payload, uint16_t n);
/* An event the host acknowledged (its type), oldest first: the host has it, once. */
typedef void (*bt_acked_fn)(void *ctx, uint8_t type);

typedef struct {
    uint32_t handshakes, resumes, retransmits, links_lost, nacks_sent, acks_sent, heartbeats, hellos,
        echoes, dropped, bad_acks, queue_full;
} bt_session_stats;

typedef struct {
    uint8_t kind;
    uint32_t capabilities, session_id;
    const char *serial, *firmware;

    uint8_t state, tx_next, rx_next, ack_due;
    uint8_t count, in_flight;     /* events queued; the first in_flight of them sent and not yet acked */
    uint8_t *queue;
    uint16_t queue_cap, queue_head, queue_used;   /* bytes: capacity, the oldest event's offset, in use */
    uint8_t sends[BT_WINDOW];     /* per event in flight, by seq % BT_WINDOW (in-flight seqs are consecutive) */
    uint32_t sent_at[BT_WINDOW];
    uint32_t last_tx, last_rx, last_hello;

    uint16_t heartbeat_ms, link_timeout_ms, retransmit_ms;
    uint8_t max_retries;
    uint8_t seat;             /* BT_NO_SEAT until WELCOME / BIND say */
    uint16_t table;

    bt_decoder decoder;
    uint8_t scratch[BT_OVERHEAD + BT_TX_MAX_PAYLOAD];
    uint8_t wire[BT_OVERHEAD + BT_TX_MAX_PAYLOAD + 3u];

    bt_write_fn write;
    bt_deliver_fn deliver;
    bt_acked_fn acked;            /* optional (0: none); set after bt_session_init */
    void *ctx;
    bt_session_stats stats;
} bt_session;

void bt_session_init(bt_session *s, uint8_t kind, uint32_t capabilities, uint32_t session_id, const char *serial,
                     const char *firmware, uint8_t *rx_buf, uint16_t rx_capacity, uint8_t *queue_buf,
                     uint16_t queue_capacity, bt_write_fn write, bt_deliver_fn deliver, void *ctx);
void bt_session_start(bt_session *s, uint32_t now);
void bt_session_feed(bt_session *s, uint8_t byte, uint32_t now);
/* Queue a reliable event (payload <= BT_EVENT_MAX); 0, or -1 when the queue has no room for it (nothing is
 * queued then: the caller keeps the event and tries again later). */
int bt_session_send(bt_session *s, uint8_t type, const uint8_t *payload, uint8_t len, uint32_t now);
/* Timers: call every millisecond or so, and after feeding bytes. */
void bt_session_poll(bt_session *s, uint32_t now);
#endif
