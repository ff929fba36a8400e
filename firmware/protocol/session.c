#include "session.h"

#define AGE(now, t) ((uint32_t)((now) - (t)))

static void send_frame(bt_session *s, uint8_t type, uint8_t flags, uint8_t seq, const uint8_t *payload,
                       uint16_t len, uint32_t now) {
    uint8_t in_session = s->state == BT_READY && type != BT_HELLO;
    bt_frame f = {BT_VERSION, type, flags, seq, in_session ? s->rx_next : 0u, len, payload};
    size_t n = bt_frame_encode(&f, s->scratch, s->wire);
    s->write(s->ctx, s->wire, n);
    s->last_tx = now;
    if (in_session) s->ack_due = 0;              /* every frame in a session carries the ack */
}

static void send_hello(bt_session *s, uint32_t now) {
    uint8_t p[BT_TX_MAX_PAYLOAD];
    uint16_t n = bt_enc_hello(p, s->kind, s->capabilities, s->session_id, s->rx_next, s->serial, s->firmware);
    static const uint8_t delimiter = 0;
    s->write(s->ctx, &delimiter, 1);             /* flush any half frame at the host (§4) */
    send_frame(s, BT_HELLO, 0, 0, p, n, now);
    s->last_hello = now;
    s->stats.hellos++;
}

static void go_lost(bt_session *s, uint32_t now) {
    s->state = BT_LOST;
    s->stats.links_lost++;
    send_hello(s, now);
}

void bt_session_init(bt_session *s, uint8_t kind, uint32_t capabilities, uint32_t session_id, const char *serial,
                     const char *firmware, uint8_t *rx_buf, uint16_t rx_capacity, uint8_t *queue_buf,
                     uint16_t queue_capacity, bt_write_fn write, bt_deliver_fn deliver, void *ctx) {
    *s = (bt_session){0};
    s->queue = queue_buf;
    s->queue_cap = queue_capacity;
    s->kind = kind;
    s->capabilities = capabilities;
    s->session_id = session_id ? session_id : 1u;
    s->serial = serial;
    s->firmware = firmware;
    s->heartbeat_ms = 1000;
    s->link_timeout_ms = 3500;
    s->retransmit_ms = 250;
    s->max_retries = 5;
    s->seat = BT_NO_SEAT;
    s->write = write;
    s->deliver = deliver;
    s->ctx = ctx;
    /* a smaller buffer (a device short of RAM, §3.2) rejects longer frames as oversize */
    uint16_t max_payload =
        rx_capacity >= BT_MAX_ENCODED ? BT_MAX_PAYLOAD : (uint16_t)(rx_capacity - BT_OVERHEAD - 2u);
    bt_decoder_init(&s->decoder, rx_buf, rx_capacity, max_payload);
}

void bt_session_start(bt_session *s, uint32_t now) {
    s->state = BT_CONNECTING;
    s->tx_next = s->rx_next = 0;
    s->in_flight = 0;
    send_hello(s, now);
}

/* the ring's index of byte `off` counted from the oldest event (off < queue_cap) */
static uint16_t q_at(const bt_session *s, uint16_t off) {
    uint16_t i = (uint16_t)(s->queue_head + off);
    return i >= s->queue_cap ? (uint16_t)(i - s->queue_cap) : i;
}

static uint8_t q_len(const bt_session *s, uint16_t off) { return s->queue[q_at(s, (uint16_t)(off + 1u))]; }

/* the event at offset off: its type and payload (copied out of the ring); returns the payload's length */
static uint8_t q_load(const bt_session *s, uint16_t off, uint8_t *type, uint8_t *payload) {
    *type = s->queue[q_at(s, off)];
    uint8_t len = q_len(s, off);
    for (uint8_t i = 0; i < len; i++) payload[i] = s->queue[q_at(s, (uint16_t)(off + 2u + i))];
    return len;
}

static uint8_t first_in_flight(const bt_session *s) { return (uint8_t)(s->tx_next - s->in_flight); }

static void process_ack(bt_session *s, uint8_t a) {
    uint8_t n = (uint8_t)(a - first_in_flight(s));
    if (n == 0 || n >= 128u) return;             /* nothing new, or a stale ack */
    if (n > s->in_flight) {
        s->stats.bad_acks++;
        return;
    }
    for (uint8_t k = 0; k < n; k++) {
        if (s->acked) s->acked(s->ctx, s->queue[s->queue_head]);
        uint16_t size = (uint16_t)(2u + q_len(s, 0));
        s->queue_head = q_at(s, size);
        s->queue_used = (uint16_t)(s->queue_used - size);
    }
    s->count = (uint8_t)(s->count - n);
    s->in_flight = (uint8_t)(s->in_flight - n);
}

static void resend_in_flight(bt_session *s, uint8_t flags, uint32_t now) {
    uint8_t payload[BT_EVENT_MAX], type, seq = first_in_flight(s);
    uint16_t off = 0;
    for (uint8_t k = 0; k < s->in_flight; k++, seq++) {
        uint8_t len = q_load(s, off, &type, payload);
        send_frame(s, type, (uint8_t)(BT_F_RELIABLE | flags), seq, payload, len, now);
        s->sends[seq % BT_WINDOW]++;
        s->sent_at[seq % BT_WINDOW] = now;
        off = (uint16_t)(off + 2u + len);
    }
}

static void transmit_new(bt_session *s, uint32_t now) {
    if (s->state != BT_READY || s->in_flight >= s->count || s->in_flight >= BT_WINDOW) return;
    uint8_t payload[BT_EVENT_MAX], type;
    uint16_t off = 0;
    for (uint8_t k = 0; k < s->in_flight; k++) off = (uint16_t)(off + 2u + q_len(s, off));
    while (s->in_flight < s->count && s->in_flight < BT_WINDOW) {
        uint8_t len = q_load(s, off, &type, payload);
        uint8_t seq = s->tx_next++;
        s->sends[seq % BT_WINDOW] = 1;
        s->sent_at[seq % BT_WINDOW] = now;
        s->in_flight++;
        send_frame(s, type, BT_F_RELIABLE, seq, payload, len, now);
        off = (uint16_t)(off + 2u + len);
    }
}

static void on_welcome(bt_session *s, const bt_frame *f, uint32_t now) {
    if (bt_msg_check(BT_WELCOME, f->payload, f->length)) return;
    bt_welcome w;
    bt_dec_welcome(f->payload, &w);
    if (w.session_id != s->session_id || w.version != BT_VERSION) return;
    s->heartbeat_ms = w.heartbeat_ms;
    s->link_timeout_ms = w.link_timeout_ms;
    s->retransmit_ms = w.retransmit_ms;
    s->max_retries = w.max_retries;
    s->seat = w.seat;
    s->table = w.table;
    s->state = BT_READY;
    s->last_rx = now;
    s->stats.handshakes++;
    if (w.resumed) {
        s->stats.resumes++;
        process_ack(s, w.rx_next);
        for (uint8_t k = 0; k < BT_WINDOW; k++) s->sends[k] = 0;   /* a fresh retry count */
        resend_in_flight(s, BT_F_RETRANSMIT, now);
    } else {
        s->tx_next = s->rx_next = 0;
        s->in_flight = 0;                         /* everything unacknowledged is renumbered from 0 */
    }
    s->deliver(s->ctx, BT_WELCOME, f->payload, f->length);
    transmit_new(s, now);
}

static void nack(bt_session *s, uint8_t seq, uint16_t code, uint32_t now) {
    uint8_t p[3];
    bt_enc_nack(p, seq, code);
    send_frame(s, BT_NACK, 0, 0, p, 3, now);
    s->stats.nacks_sent++;
}

/* 0 when an application message for a device may be acted on, else the NACK code */
static uint16_t refusal(const bt_frame *f) {
    uint8_t dir = bt_msg_direction(f->type);
    if (dir == BT_DIR_UNKNOWN) return BT_E_UNKNOWN_MESSAGE;
    if (dir == BT_DIR_TO_HOST || bt_msg_is_control(f->type)) return BT_E_UNEXPECTED_MESSAGE;
    return bt_msg_check(f->type, f->payload, f->length);
}

static void on_frame(bt_session *s, const bt_frame *f, uint32_t now) {
    if (!(f->flags & BT_F_FROM_HOST)) {           /* our own frame echoed back */
        s->stats.echoes++;
        return;
    }
    if (s->state == BT_CONNECTING || s->state == BT_LOST) {
        if (f->type == BT_WELCOME) on_welcome(s, f, now);
        else if (f->type == BT_ERROR && !bt_msg_check(BT_ERROR, f->payload, f->length)) s->state = BT_REFUSED;
        else s->stats.dropped++;
        return;
    }
    if (s->state != BT_READY) return;
    s->last_rx = now;
    if (f->type == BT_WELCOME) return;            /* a repeated WELCOME */
    if (f->type == BT_RESET) {
        if (bt_msg_check(BT_RESET, f->payload, f->length)) return;
        s->state = BT_CONNECTING;                 /* same session_id: the host resumes the session */
        send_hello(s, now);
        return;
    }
    process_ack(s, f->ack);
    if (f->flags & BT_F_RELIABLE) {
        uint8_t d = (uint8_t)(f->seq - s->rx_next);
        if (d != 0) {                             /* a gap or a duplicate: show where we are */
            send_frame(s, BT_ACK, 0, 0, 0, 0, now);
            s->stats.acks_sent++;
            return;
        }
        s->rx_next++;
        s->ack_due = 1;
        uint16_t code = refusal(f);
        if (code) nack(s, f->seq, code, now);
        else s->deliver(s->ctx, f->type, f->payload, f->length);
    } else if (!bt_msg_is_control(f->type) && !refusal(f)) {
        s->deliver(s->ctx, f->type, f->payload, f->length);   /* accepted, outside the sequence (§6.1) */
    }
    transmit_new(s, now);
}

void bt_session_feed(bt_session *s, uint8_t byte, uint32_t now) {
    if (bt_decoder_feed(&s->decoder, byte) == BT_RX_FRAME) on_frame(s, &s->decoder.frame, now);
}

int bt_session_send(bt_session *s, uint8_t type, const uint8_t *payload, uint8_t len, uint32_t now) {
    uint16_t size = (uint16_t)(2u + len);
    if (s->count == 255u || len > BT_EVENT_MAX || size > (uint16_t)(s->queue_cap - s->queue_used)) {
        s->stats.queue_full++;
        return -1;
    }
    s->queue[q_at(s, s->queue_used)] = type;
    s->queue[q_at(s, (uint16_t)(s->queue_used + 1u))] = len;
    for (uint8_t i = 0; i < len; i++) s->queue[q_at(s, (uint16_t)(s->queue_used + 2u + i))] = payload[i];
    s->queue_used = (uint16_t)(s->queue_used + size);
    s->count++;
    transmit_new(s, now);
    return 0;
}

void bt_session_poll(bt_session *s, uint32_t now) {
    switch (s->state) {
    case BT_CONNECTING:
    case BT_LOST:
        if (AGE(now, s->last_hello) >= BT_HELLO_MS) send_hello(s, now);
        return;
    case BT_READY:
        break;
    case BT_REFUSED:                              /* docs/protocol.md §5.3: try again, rarely */
        if (AGE(now, s->last_hello) >= BT_REFUSED_RETRY_MS) {
            s->state = BT_CONNECTING;
            send_hello(s, now);
        }
        return;
    default:
        return;
    }
    if (AGE(now, s->last_rx) >= s->link_timeout_ms) {
        go_lost(s, now);
        return;
    }
    uint8_t oldest = (uint8_t)(first_in_flight(s) % BT_WINDOW);
    if (s->in_flight && AGE(now, s->sent_at[oldest]) >= s->retransmit_ms) {
        if (s->sends[oldest] >= 1u + s->max_retries) {
            go_lost(s, now);
            return;
        }
        s->stats.retransmits++;
        resend_in_flight(s, BT_F_RETRANSMIT, now);
    }
    transmit_new(s, now);
    if (s->ack_due) {
        send_frame(s, BT_ACK, 0, 0, 0, 0, now);
        s->stats.acks_sent++;
    }
    if (AGE(now, s->last_tx) >= s->heartbeat_ms) {
        uint8_t p[4];
        bt_enc_heartbeat(p, now);
        send_frame(s, BT_HEARTBEAT, 0, 0, p, 4, now);
        s->stats.heartbeats++;
    }
}
