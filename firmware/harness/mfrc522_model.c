#include "mfrc522_model.h"

#include <string.h>

uint16_t iso14443a_crc(const uint8_t *p, uint8_t n);

/* MFRC522 registers (datasheet §9.2) */
enum { CommandReg = 0x01, ComIEnReg = 0x02, ComIrqReg = 0x04, DivIrqReg = 0x05, ErrorReg = 0x06,
       Status1Reg = 0x07, Status2Reg = 0x08, FIFODataReg = 0x09, FIFOLevelReg = 0x0A, ControlReg = 0x0C,
       BitFramingReg = 0x0D, CollReg = 0x0E, ModeReg = 0x11, TxModeReg = 0x12, RxModeReg = 0x13,
       TxControlReg = 0x14, TxASKReg = 0x15, DemodReg = 0x19, TModeReg = 0x2A, TPrescalerReg = 0x2B,
       TReloadRegH = 0x2C, TReloadRegL = 0x2D, TCounterValRegH = 0x2E, TCounterValRegL = 0x2F,
       VersionReg = 0x37 };
enum { CMD_IDLE = 0x00, CMD_TRANSCEIVE = 0x0C, CMD_SOFT_RESET = 0x0F };
/* ComIrqReg bits (§9.3.1.5) */
enum { TimerIRq = 0x01, ErrIRq = 0x02, IdleIRq = 0x10, RxIRq = 0x20, TxIRq = 0x40 };
/* ErrorReg bits (§9.3.1.7) */
enum { CRCErr = 0x04, CollErr = 0x08 };

#define FC_HZ 13560000ull
/* ISO/IEC 14443-2 §8.1: at 106 kbit/s one bit lasts 128/fc (9.44 us) */
static uint64_t bits_ns(uint32_t bits) { return (uint64_t)bits * 128ull * 1000000000ull / FC_HZ; }
/* ISO/IEC 14443-3 §6.2.1.1: the PICC answers (n * 128 + 84) / fc after the reader's last bit, n = 9 for
 * REQA, WUPA, ANTICOLLISION and SELECT (and at least 9 for the rest) */
#define FDT_NS ((9ull * 128ull + 84ull) * 1000000000ull / FC_HZ)

/* NTAG213: 45 pages of 4 bytes (NTAG21x §8.5); 0-2 UID and BCCs, 3 the capability container */
#define NTAG_PAGES 45u

static uint8_t field_on(const mfrc522_model *m) { return (m->regs[TxControlReg] & 0x03u) != 0; }

static void power_off_tags(mfrc522_model *m) {
    for (uint8_t i = 0; i < m->ntags; i++) {
        m->tags[i].state = NTAG_IDLE;             /* unpowered, a tag forgets everything (ISO/IEC 14443-3 §6.3) */
        m->tags[i].from_halt = 0;
    }
}

void mfrc522_model_reset(mfrc522_model *m) {
    /* reset values, datasheet §9.3 (register tables) */
    memset(m->regs, 0, sizeof m->regs);
    m->regs[CommandReg] = 0x20;
    m->regs[ComIEnReg] = 0x80;
    m->regs[ComIrqReg] = 0x14;
    m->regs[Status1Reg] = 0x21;
    m->regs[ControlReg] = 0x10;
    m->regs[CollReg] = 0xA0;
    m->regs[ModeReg] = 0x3F;
    m->regs[TxControlReg] = 0x80;                 /* both antenna drivers off: no field */
    m->regs[DemodReg] = 0x4D;
    m->regs[VersionReg] = 0x92;                   /* MFRC522 version 2.0 */
    m->fifo_len = m->fifo_rd = 0;
    m->busy = m->answered = 0;
    m->timer_running = 0;
    power_off_tags(m);
}

void mfrc522_model_place(mfrc522_model *m, const uint8_t *uid, uint8_t len) {
    m->ntags = 0;
    if (len) mfrc522_model_add(m, uid, len);
}

int mfrc522_model_add(mfrc522_model *m, const uint8_t *uid, uint8_t len) {
    if (m->ntags >= MFRC522_MODEL_TAGS || (len != 4 && len != 7)) return -1;
    mfrc522_tag *t = &m->tags[m->ntags++];
    memset(t, 0, sizeof *t);
    memcpy(t->uid, uid, len);
    t->uid_len = len;
    t->state = NTAG_IDLE;                         /* entering the field: power-on, IDLE (NTAG21x §8.4.1) */
    return 0;
}

/* ------------------------------------------------------------------ bits */
static uint8_t bit_at(const uint8_t *p, uint32_t i) { return (uint8_t)((p[i >> 3] >> (i & 7u)) & 1u); }
static void set_bit(uint8_t *p, uint32_t i, uint8_t v) {
    if (v) p[i >> 3] |= (uint8_t)(1u << (i & 7u));
    else p[i >> 3] &= (uint8_t)~(1u << (i & 7u));
}

/* the 5 bytes of a cascade level: UID CLn (or CT + 3 UID bytes at level 1 of a 7-byte UID) and the BCC
 * (ISO/IEC 14443-3 §6.4.4) */
static void level_bytes(const mfrc522_tag *t, uint8_t level, uint8_t *out) {
    if (t->uid_len == 4) memcpy(out, t->uid, 4);
    else if (level == 1) {
        out[0] = 0x88;
        memcpy(out + 1, t->uid, 3);
    } else memcpy(out, t->uid + 3, 4);
    out[4] = (uint8_t)(out[0] ^ out[1] ^ out[2] ^ out[3]);
}

static uint8_t with_crc(uint8_t *p, uint8_t n) {
    uint16_t crc = iso14443a_crc(p, n);
    p[n] = (uint8_t)crc;
    p[n + 1] = (uint8_t)(crc >> 8);
    return (uint8_t)(n + 2);
}

static uint8_t crc_ok(const uint8_t *p, uint8_t n) {
    return n >= 3 && iso14443a_crc(p, (uint8_t)(n - 2)) == (uint16_t)(p[n - 2] | (p[n - 1] << 8));
}

static void ntag_page(const mfrc522_tag *t, uint8_t page, uint8_t *out) {
    memset(out, 0, 4);
    if (t->uid_len != 7) return;
    const uint8_t *u = t->uid;
    if (page == 0) {
        out[0] = u[0], out[1] = u[1], out[2] = u[2], out[3] = (uint8_t)(0x88 ^ u[0] ^ u[1] ^ u[2]);
    } else if (page == 1) {
        memcpy(out, u + 3, 4);
    } else if (page == 2) {
        out[0] = (uint8_t)(u[3] ^ u[4] ^ u[5] ^ u[6]);
        out[1] = 0x48;                            /* internal */
    } else if (page == 3) {
        out[0] = 0xE1, out[1] = 0x10, out[2] = 0x12;   /* NTAG213 capability container (§8.5.6) */
    }
}

/* ------------------------------------------------------------------ one tag, one frame */
static void fallback(mfrc522_model *m, mfrc522_tag *t) {
    /* NTAG21x §8.4: in READY1, READY2 and ACTIVE an unexpected frame returns the tag to IDLE, or to HALT
     * when it was woken from HALT */
    t->state = t->from_halt ? NTAG_HALT : NTAG_IDLE;
    m->tag_fallbacks++;
}

/* The tag's reaction to a frame of nbits bits (in[], bit 0 of byte 0 first); its answer in out (out_bits bits,
 * 0: silent). */
static uint16_t tag_frame(mfrc522_model *m, mfrc522_tag *t, const uint8_t *in, uint16_t nbits, uint8_t *out) {
    uint8_t n = (uint8_t)(nbits / 8u);
    if (nbits == 7) {                              /* a short frame (ISO/IEC 14443-3 §6.1.5.1) */
        uint8_t cmd = in[0] & 0x7Fu;
        uint8_t wakes = (cmd == 0x26 && t->state == NTAG_IDLE) ||
                        (cmd == 0x52 && (t->state == NTAG_IDLE || t->state == NTAG_HALT));
        if (wakes) {
            t->from_halt = t->state == NTAG_HALT;
            t->state = NTAG_READY1;
            out[0] = t->uid_len == 7 ? 0x44 : 0x04;   /* ATQA 0x0044 (NTAG21x §9.4.1) */
            out[1] = 0x00;
            return 16;
        }
        if (t->state != NTAG_IDLE && t->state != NTAG_HALT) fallback(m, t);
        return 0;
    }
    switch (t->state) {
    case NTAG_IDLE:
    case NTAG_HALT:
        return 0;                                  /* only REQA / WUPA are heard here */
    case NTAG_READY1:
    case NTAG_READY2: {
        uint8_t level = t->state == NTAG_READY1 ? 1 : 2;
        uint8_t sel = level == 1 ? 0x93 : 0x95;
        if (nbits < 16 || in[0] != sel) break;
        uint8_t nvb = in[1], lb[5];
        level_bytes(t, level, lb);
        if (nvb == 0x70) {                         /* SELECT (ISO/IEC 14443-3 §6.4.3.1) */
            if (nbits != 72 || !crc_ok(in, 9)) break;
            if (memcmp(in + 2, lb, 5)) return 0;   /* another tag's UID: not addressed, stays */
            uint8_t complete = t->uid_len == 4 || level == 2;
            t->state = complete ? NTAG_ACTIVE : NTAG_READY2;
            out[0] = complete ? 0x00 : 0x04;       /* SAK (NTAG21x §9.4.3): cascade bit while incomplete */
            return (uint16_t)(8u * with_crc(out, 1));
        }
        uint16_t known = (uint16_t)((nvb >> 4) * 8u + (nvb & 0x0Fu));
        if ((nvb & 0x0Fu) > 7 || known < 16 || known > 55 || known != nbits) break;   /* ANTICOLLISION */
        known = (uint16_t)(known - 16u);
        for (uint16_t i = 0; i < known; i++)
            if (bit_at(in + 2, i) != bit_at(lb, i)) return 0;   /* not this tag's UID bits: silent, stays */
        memset(out, 0, 6);
        for (uint16_t i = known; i < 40; i++) set_bit(out, (uint32_t)(i - known), bit_at(lb, i));
        return (uint16_t)(40u - known);
    }
    case NTAG_ACTIVE:
        if (nbits % 8u || !crc_ok(in, n)) break;
        if (n == 4 && in[0] == 0x50 && in[1] == 0x00) {   /* HLTA (ISO/IEC 14443-3 §6.4.3.2): no answer */
            t->state = NTAG_HALT;
            return 0;
        }
        if (n == 4 && in[0] == 0x30 && in[1] < NTAG_PAGES) {   /* READ: 4 pages, rolling over (NTAG21x §10.2) */
            for (uint8_t k = 0; k < 4; k++) ntag_page(t, (uint8_t)((in[1] + k) % NTAG_PAGES), out + 4 * k);
            return (uint16_t)(8u * with_crc(out, 16));
        }
        out[0] = 0x00;                             /* NAK (NTAG21x §9.3), then IDLE / HALT */
        fallback(m, t);
        return 4;
    default:
        break;
    }
    fallback(m, t);
    return 0;
}

/* ------------------------------------------------------------------ the transceive and the timer */
static uint64_t timer_period_ns(const mfrc522_model *m) {
    /* §8.5: f_timer = 13.56 MHz / (2 * TPrescaler + 1), or (2 * TPrescaler + 2) with DemodReg TPrescalEven */
    uint64_t pre = ((uint64_t)(m->regs[TModeReg] & 0x0Fu) << 8) | m->regs[TPrescalerReg];
    uint64_t div = 2u * pre + ((m->regs[DemodReg] & 0x10u) ? 2u : 1u);
    uint64_t reload = ((uint64_t)m->regs[TReloadRegH] << 8) | m->regs[TReloadRegL];
    return div * (reload + 1u) * 1000000000ull / FC_HZ;
}

static void timer_start(mfrc522_model *m, uint64_t at) {
    m->timer_running = 1;
    m->timer_start_ns = at;
    m->timer_end_ns = at + timer_period_ns(m);
}

static void deliver(mfrc522_model *m) {
    uint8_t align = (uint8_t)((m->regs[BitFramingReg] >> 4) & 7u);
    uint16_t bits = m->answer_bits;
    uint8_t err = 0;
    uint8_t buf[66];
    memset(buf, 0, sizeof buf);
    for (uint16_t i = 0; i < bits; i++) {
        uint8_t v = bit_at(m->answer, i);
        if (m->coll_bit >= 0 && i > m->coll_bit && !(m->regs[CollReg] & 0x80u)) v = 0;   /* ValuesAfterColl 0 */
        set_bit(buf, (uint32_t)(align + i), v);
    }
    uint16_t total = (uint16_t)(align + bits);
    uint8_t nbytes = (uint8_t)((total + 7u) / 8u);
    if (m->coll_bit >= 0) {
        uint16_t pos = (uint16_t)(align + m->coll_bit + 1);   /* CollPos: 1 = the first bit (§9.3.1.15) */
        err |= CollErr;
        m->regs[CollReg] = (uint8_t)((m->regs[CollReg] & 0x80u) | (pos > 32 ? 0x20u : (pos & 0x1Fu)));
        m->collisions++;
    } else {
        m->regs[CollReg] = (uint8_t)((m->regs[CollReg] & 0x80u) | 0x20u);   /* CollPosNotValid */
    }
    if ((m->regs[RxModeReg] & 0x80u) && total % 8u == 0 && m->coll_bit < 0) {   /* RxCRCEn: checked, dropped */
        if (nbytes >= 3 && crc_ok(buf, nbytes)) nbytes = (uint8_t)(nbytes - 2u);
        else err |= CRCErr;
    }
    m->fifo_len = m->fifo_rd = 0;
    for (uint8_t i = 0; i < nbytes && m->fifo_len < sizeof m->fifo; i++) m->fifo[m->fifo_len++] = buf[i];
    m->regs[ControlReg] = (uint8_t)((m->regs[ControlReg] & 0xF8u) | (total % 8u));   /* RxLastBits */
    m->regs[ErrorReg] = err;
    m->regs[ComIrqReg] |= (uint8_t)(RxIRq | (err ? ErrIRq : 0));
    m->answers++;
}

/* brings the chip up to m->now_ns: end of transmission, timer expiry, answer received, in their order */
static void advance(mfrc522_model *m) {
    for (;;) {
        uint64_t next = UINT64_MAX;
        int what = 0;
        if (m->busy == 1 && m->tx_end_ns < next) next = m->tx_end_ns, what = 1;
        uint64_t stop_at = m->rx_start_ns + bits_ns(5);   /* TAuto: the timer stops after the 5th bit received */
        if (m->busy == 2 && m->answered && m->timer_running && (m->regs[TModeReg] & 0x80u) && stop_at < next &&
            stop_at < m->timer_end_ns)
            next = stop_at, what = 2;
        if (m->timer_running && m->timer_end_ns < next) next = m->timer_end_ns, what = 3;
        if (m->busy == 2 && m->answered && m->rx_end_ns < next) next = m->rx_end_ns, what = 4;
        if (!what || next > m->now_ns) return;
        switch (what) {
        case 1:
            m->busy = 2;
            m->regs[ComIrqReg] |= TxIRq;
            if (m->regs[TModeReg] & 0x80u) timer_start(m, m->tx_end_ns);   /* TAuto (§9.3.3.10) */
            break;
        case 2:
            m->timer_running = 0;
            break;
        case 3:
            m->regs[ComIrqReg] |= TimerIRq;
            m->timer_irqs++;
            if (m->regs[TModeReg] & 0x10u) timer_start(m, m->timer_end_ns);   /* TAutoRestart */
            else m->timer_running = 0;
            break;
        case 4:
            deliver(m);
            m->busy = 3;                          /* received; Transceive waits for the next StartSend */
            break;
        }
    }
}

static void start_send(mfrc522_model *m) {
    uint8_t in[66], n = (uint8_t)(m->fifo_len - m->fifo_rd);
    memcpy(in, m->fifo + m->fifo_rd, n);
    m->fifo_len = m->fifo_rd = 0;
    uint8_t last = m->regs[BitFramingReg] & 7u;
    if (n == 0) return;
    if (m->regs[TxModeReg] & 0x80u) n = with_crc(in, n);   /* TxCRCEn */
    uint16_t nbits = (uint16_t)((n - 1u) * 8u + (last ? last : 8u));
    m->transceives++;
    m->regs[ErrorReg] = 0;
    /* air time: SOF, the bits with one parity bit per whole byte, EOF (ISO/IEC 14443-3 §6.1.5) */
    m->tx_end_ns = m->now_ns + bits_ns((uint32_t)(1u + nbits + nbits / 8u + 1u));
    m->busy = 1;
    m->answered = 0;
    m->coll_bit = -1;
    if (!field_on(m)) return;
    uint8_t out[MFRC522_MODEL_TAGS][20];
    uint16_t obits[MFRC522_MODEL_TAGS], most = 0;
    uint8_t talking = 0;
    for (uint8_t i = 0; i < m->ntags; i++) {
        obits[i] = tag_frame(m, &m->tags[i], in, nbits, out[i]);
        if (obits[i]) {
            talking++;
            if (obits[i] > most) most = obits[i];
        }
    }
    if (!talking) return;                          /* silence: only the timer ends the wait */
    memset(m->answer, 0, sizeof m->answer);
    for (uint16_t b = 0; b < most; b++) {
        uint8_t ones = 0, zeros = 0;
        for (uint8_t i = 0; i < m->ntags; i++) {
            if (!obits[i]) continue;
            if (b >= obits[i]) ones = zeros = 1;   /* one answer ended, another goes on: no valid coding */
            else if (bit_at(out[i], b)) ones = 1;
            else zeros = 1;
        }
        if (ones && zeros && m->coll_bit < 0) m->coll_bit = (int16_t)b;   /* both Manchester halves modulated */
        set_bit(m->answer, b, ones);
    }
    m->answer_bits = most;
    m->answered = 1;
    m->rx_start_ns = m->tx_end_ns + FDT_NS;
    m->rx_end_ns = m->rx_start_ns + bits_ns((uint32_t)(1u + most + most / 8u + 1u));
}

static uint16_t timer_value(mfrc522_model *m) {
    if (!m->timer_running) return (uint16_t)((m->regs[TCounterValRegH] << 8) | m->regs[TCounterValRegL]);
    uint64_t period = timer_period_ns(m), left = m->timer_end_ns > m->now_ns ? m->timer_end_ns - m->now_ns : 0;
    uint64_t reload = ((uint64_t)m->regs[TReloadRegH] << 8) | m->regs[TReloadRegL];
    return (uint16_t)(period ? left * (reload + 1u) / period : 0);
}

static uint8_t read_reg(mfrc522_model *m, uint8_t reg) {
    advance(m);
    switch (reg) {
    case FIFODataReg: return m->fifo_rd < m->fifo_len ? m->fifo[m->fifo_rd++] : 0;
    case FIFOLevelReg: return (uint8_t)(m->fifo_len - m->fifo_rd);
    case Status1Reg: return (uint8_t)((m->regs[Status1Reg] & ~0x08u) | (m->timer_running ? 0x08u : 0u));
    case TCounterValRegH: return (uint8_t)(timer_value(m) >> 8);
    case TCounterValRegL: return (uint8_t)timer_value(m);
    default: return m->regs[reg];
    }
}

static void write_reg(mfrc522_model *m, uint8_t reg, uint8_t v) {
    advance(m);
    switch (reg) {
    case CommandReg:
        if ((v & 0x0F) == CMD_SOFT_RESET) {
            mfrc522_model_reset(m);
            break;
        }
        m->regs[CommandReg] = (uint8_t)((m->regs[CommandReg] & 0xF0u) | (v & 0x3Fu));
        if ((v & 0x0F) != CMD_TRANSCEIVE) m->busy = 0;   /* any other command ends a transceive (§10.3.1.8) */
        break;
    case ComIrqReg:                                /* Set1: bit 7 says whether the marked bits are set or cleared */
        if (v & 0x80) m->regs[ComIrqReg] |= v & 0x7F;
        else m->regs[ComIrqReg] &= (uint8_t)~(v & 0x7F);
        break;
    case ErrorReg:
    case Status1Reg:
    case VersionReg:
        break;                                     /* read-only */
    case FIFOLevelReg:
        if (v & 0x80) m->fifo_len = m->fifo_rd = 0;   /* FlushBuffer */
        break;
    case FIFODataReg:
        if (m->fifo_len < sizeof m->fifo) m->fifo[m->fifo_len++] = v;
        else m->regs[ErrorReg] |= 0x10;           /* BufferOvfl */
        break;
    case ControlReg:
        if (v & 0x80) m->timer_running = 0;       /* TStopNow */
        if (v & 0x40) timer_start(m, m->now_ns);  /* TStartNow */
        break;
    case BitFramingReg:
        m->regs[BitFramingReg] = v & 0x7F;
        if ((v & 0x80) && (m->regs[CommandReg] & 0x0F) == CMD_TRANSCEIVE) start_send(m);
        break;
    case TxControlReg: {
        uint8_t was = field_on(m);
        m->regs[TxControlReg] = v;
        if (was && !field_on(m)) power_off_tags(m);
        break;
    }
    default:
        m->regs[reg] = v;
    }
}

void mfrc522_model_chip_select(mfrc522_model *m, uint8_t level) {
    m->selected = !level;
    m->index = 0;
}

uint8_t mfrc522_model_spi(mfrc522_model *m, uint8_t mosi) {
    if (!m->selected) return 0xFF;
    uint8_t miso = 0;
    if (m->index == 0) {
        m->reading = mosi & 0x80;
    } else if (m->reading) {
        miso = read_reg(m, m->addr);
    } else {
        write_reg(m, m->addr, mosi);
    }
    if (m->index == 0 || m->reading) m->addr = (mosi >> 1) & 0x3F;   /* in a read, each byte names the next */
    m->index++;
    return miso;
}
