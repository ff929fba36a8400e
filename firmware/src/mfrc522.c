#include "mfrc522.h"

#include <avr/io.h>

#include "board.h"

/* registers (MFRC522 datasheet §9.2) */
#define CommandReg 0x01
#define ComIrqReg 0x04
#define ErrorReg 0x06
#define FIFODataReg 0x09
#define FIFOLevelReg 0x0A
#define ControlReg 0x0C
#define BitFramingReg 0x0D
#define CollReg 0x0E
#define ModeReg 0x11
#define TxControlReg 0x14
#define TxASKReg 0x15
#define TModeReg 0x2A
#define TPrescalerReg 0x2B
#define TReloadRegH 0x2C
#define TReloadRegL 0x2D
#define VersionReg 0x37

#define CMD_IDLE 0x00
#define CMD_TRANSCEIVE 0x0C
#define CMD_SOFT_RESET 0x0F
#define RX_IRQ 0x20
#define TIMER_IRQ 0x01
#define COLL_ERR 0x08

#define PICC_WUPA 0x52
#define PICC_SEL_CL1 0x93
#define PICC_SEL_CL2 0x95
#define PICC_HLTA 0x50
#define CASCADE_TAG 0x88

/* the timer: 13.56 MHz / (2 * 169 + 1) = 40 kHz (25 us a tick), TAuto; 40 ticks = 1 ms after each frame
 * (§8.5). A tag answers REQA, WUPA, ANTICOLLISION and SELECT about 90 us after the frame (ISO/IEC 14443-3
 * §6.2.1.1, FDT); HLTA is acknowledged by 1 ms of silence (§6.4.3.2). */
#define T_MODE 0x80u
#define T_PRESCALER 0xA9u
#define T_RELOAD 39u
#define EXCHANGE_STUCK_MS 30u     /* neither RxIRq nor TimerIRq after this long: the chip is not working */
#define HEALTH_MS 1000u
#define READS_MARGIN 4u           /* tags selected in one round beyond the capacity before it gives up */

rfid_stats mfrc522_stats;
uint16_t mfrc522_spi_ops;

enum { S_RESET = 0, S_BOOT, S_IDLE, S_SEND, S_WAIT };
enum { X_WUPA = 0, X_ANTICOLL, X_SELECT, X_HLTA };

typedef struct reader {
    volatile uint8_t *cs_port;    /* the chip's NSS pin: low selects it (its MISO is driven only then) */
    uint8_t cs_bit;
    uint8_t state, ok, x, level, known, reads, staged, npend;
    uint8_t lb[5];                /* the cascade level's 40 bits (UID CLn and BCC), `known` of them so far */
    uint8_t uid[7];
    uint8_t tx[9], tx_bits;       /* the next frame, sent at the next step (one SPI burst a step) */
    uint32_t at, last_round, last_check;
    rfid_round r;
    /* The anticollision as a binary tree walk: at a collided bit the reader follows the tags with a 1 and
     * keeps the 0 branch here; after each tag is read and halted, WUPA again and resume at a kept branch
     * (only tags under its prefix answer). WUPA is needed (not REQA) because a tag waiting in READY1 falls
     * back to HALT, when it was woken from HALT, as soon as another tag's cascade level 2 starts (NTAG21x
     * §8.4); WUPA wakes it again, and the prefix keeps the tags already read out of the way. */
    struct branch {
        uint8_t level, known;
        uint8_t lb[5];            /* the cascade level's bits known, the branch's bit included */
        uint8_t cl1[3];           /* level 2: the UID's first three bytes (the level-1 SELECT to repeat) */
    } *pend, stage;               /* the walk keeps at most one branch per tag not yet read: r.cap of them */
} reader;

static reader readers[RFID_READERS];
static rfid_uid play_uids[RFID_TAGS_MAX], dummy_uids[RFID_DUMMY_TAGS_MAX];
static struct branch play_branches[RFID_TAGS_MAX], dummy_branches[RFID_DUMMY_TAGS_MAX];
static reader *rd = &readers[0];          /* the reader the step at hand works on */

static uint8_t spi(uint8_t b) {
    SPDR = b;
    while (!(SPSR & _BV(SPIF))) {
    }
    return SPDR;
}

static void select_chip(uint8_t on) {
    if (on) *rd->cs_port &= (uint8_t)~rd->cs_bit;
    else *rd->cs_port |= rd->cs_bit;
}

static void write_reg(uint8_t reg, uint8_t v) {
    mfrc522_spi_ops++;
    select_chip(1);
    spi((uint8_t)((reg << 1) & 0x7E));
    spi(v);
    select_chip(0);
}

static uint8_t read_reg(uint8_t reg) {
    mfrc522_spi_ops++;
    select_chip(1);
    spi((uint8_t)(0x80 | ((reg << 1) & 0x7E)));
    uint8_t v = spi(0);
    select_chip(0);
    return v;
}

void mfrc522_init(void) {
    /* both chips deselected before SPI starts (each drives MISO only while its NSS is low), out of hard
     * reset (PB4 drives both NRSTPD pins) */
    PORTB |= _BV(PB0) | _BV(PB4);
    PORTL |= _BV(PL0);
    DDRB |= _BV(PB0) | _BV(PB1) | _BV(PB2) | _BV(PB4);
    DDRL |= _BV(PL0);
    SPCR = _BV(SPE) | _BV(MSTR);                  /* mode 0, f/4 = 4 MHz (the chip takes up to 10 MHz) */
    readers[RFID_PLAY].cs_port = &PORTB;
    readers[RFID_PLAY].cs_bit = _BV(PB0);
    readers[RFID_DUMMY].cs_port = &PORTL;
    readers[RFID_DUMMY].cs_bit = _BV(PL0);
    readers[RFID_PLAY].r.tag = play_uids;
    readers[RFID_PLAY].r.cap = RFID_TAGS_MAX;
    readers[RFID_PLAY].pend = play_branches;
    readers[RFID_DUMMY].r.tag = dummy_uids;
    readers[RFID_DUMMY].r.cap = RFID_DUMMY_TAGS_MAX;
    readers[RFID_DUMMY].pend = dummy_branches;
    for (uint8_t k = 0; k < RFID_READERS; k++) {
        readers[k].state = S_RESET;
        readers[k].ok = 0;
    }
}

uint8_t mfrc522_healthy(uint8_t which) { return readers[which].ok; }

static uint8_t configure(void) {
    write_reg(TModeReg, T_MODE);
    write_reg(TPrescalerReg, T_PRESCALER);
    write_reg(TReloadRegH, 0);
    write_reg(TReloadRegL, T_RELOAD);
    write_reg(TxASKReg, 0x40);                    /* 100 % ASK */
    write_reg(ModeReg, 0x3D);                     /* CRC preset 0x6363 */
    write_reg(CollReg, 0x00);                     /* ValuesAfterColl 0: bits after a collision read 0 */
    write_reg(TxControlReg, (uint8_t)(read_reg(TxControlReg) | 0x03));   /* antenna on */
    uint8_t v = read_reg(VersionReg);
    return v == 0x91 || v == 0x92;
}

/* the chip still as set up (a reset or brown-out of the MFRC522 alone puts its registers back to their
 * reset values: no timer, no field) */
static uint8_t still_configured(void) {
    uint8_t v = read_reg(VersionReg);
    return (v == 0x91 || v == 0x92) && read_reg(TModeReg) == T_MODE && read_reg(TReloadRegL) == T_RELOAD &&
           (read_reg(TxControlReg) & 0x03) == 0x03;
}

/* the next Transceive: `bits` bits of out (whole bytes, the last one `bits % 8` bits long when not 0), sent at
 * the next step */
static void start(uint8_t x, const uint8_t *out, uint8_t bits, uint32_t now) {
    (void)now;
    for (uint8_t i = 0; i < (uint8_t)((bits + 7u) / 8u); i++) rd->tx[i] = out[i];
    rd->tx_bits = bits;
    rd->x = x;
    rd->state = S_SEND;
}

static void send(uint32_t now) {
    uint8_t n = (uint8_t)((rd->tx_bits + 7u) / 8u), last = (uint8_t)(rd->tx_bits & 7u);
    uint8_t framing = (uint8_t)(rd->x == X_ANTICOLL ? (last << 4) | last : last);   /* RxAlign = TxLastBits */
    write_reg(ComIrqReg, 0x7F);                   /* clear every interrupt request */
    write_reg(FIFOLevelReg, 0x80);                /* flush the FIFO */
    for (uint8_t i = 0; i < n; i++) write_reg(FIFODataReg, rd->tx[i]);
    write_reg(BitFramingReg, framing);
    write_reg(CommandReg, CMD_TRANSCEIVE);
    write_reg(BitFramingReg, (uint8_t)(0x80 | framing));   /* StartSend */
    rd->at = now;
    rd->state = S_WAIT;
    mfrc522_stats.exchanges++;
}

static void send_wupa(uint32_t now) {
    uint8_t cmd = PICC_WUPA;
    start(X_WUPA, &cmd, 7, now);
}

static void anticoll(uint32_t now) {
    uint8_t cmd[7];
    uint8_t whole = (uint8_t)(rd->known / 8u), extra = (uint8_t)(rd->known & 7u);
    cmd[0] = rd->level == 1 ? PICC_SEL_CL1 : PICC_SEL_CL2;
    cmd[1] = (uint8_t)(((2u + whole) << 4) | extra);   /* NVB: bytes and bits sent (ISO/IEC 14443-3 §6.4.3.3) */
    for (uint8_t i = 0; i < whole + (extra ? 1u : 0u); i++) cmd[2 + i] = rd->lb[i];
    start(X_ANTICOLL, cmd, (uint8_t)(16u + rd->known), now);
}

static void new_level(uint8_t level, uint32_t now) {
    rd->level = level;
    rd->known = 0;
    for (uint8_t i = 0; i < 5; i++) rd->lb[i] = 0;
    anticoll(now);
}

static void with_crc(uint8_t *p, uint8_t n) {
    uint16_t crc = iso14443a_crc(p, n);
    p[n] = (uint8_t)crc;
    p[n + 1] = (uint8_t)(crc >> 8);
}

static void end_round(void) {
    rd->state = S_IDLE;
    mfrc522_stats.rounds++;
}

static void found(void) {
    uint8_t len = rd->level == 1 ? 4u : 7u;
    for (uint8_t i = 0; i < 4; i++) rd->uid[len - 4u + i] = rd->lb[i];
    for (uint8_t k = 0; k < rd->r.n; k++) {        /* read twice (it missed an HLTA): once */
        uint8_t same = rd->r.tag[k].len == len;
        for (uint8_t i = 0; same && i < len; i++) same = rd->r.tag[k].uid[i] == rd->uid[i];
        if (same) return;
    }
    if (rd->r.n >= rd->r.cap) {
        rd->r.too_many = 1;
        return;
    }
    rfid_uid *t = &rd->r.tag[rd->r.n++];
    t->len = len;
    for (uint8_t i = 0; i < len; i++) t->uid[i] = rd->uid[i];
}

static void select_level(uint32_t now) {
    uint8_t cmd[9] = {rd->level == 1 ? PICC_SEL_CL1 : PICC_SEL_CL2, 0x70};
    for (uint8_t i = 0; i < 5; i++) cmd[2 + i] = rd->lb[i];
    with_crc(cmd, 7);
    start(X_SELECT, cmd, 72, now);
}

static void keep_branch(uint8_t c) {
    if (rd->npend >= rd->r.cap) {
        rd->r.too_many = 1;                        /* more tags than the walk can keep track of */
        return;
    }
    struct branch *b = &rd->pend[rd->npend++];
    b->level = rd->level;
    b->known = (uint8_t)(c + 1u);
    for (uint8_t i = 0; i < 5; i++) b->lb[i] = rd->lb[i];
    b->lb[c / 8u] &= (uint8_t)~(1u << (c & 7u));
    for (uint8_t i = 0; i < 3; i++) b->cl1[i] = rd->uid[i];
}

/* after a WUPA answered: go on at the staged branch */
static void resume(uint32_t now) {
    if (rd->stage.level == 1) {
        rd->staged = 0;
        rd->level = 1;
        rd->known = rd->stage.known;
        for (uint8_t i = 0; i < 5; i++) rd->lb[i] = rd->stage.lb[i];
        anticoll(now);
        return;
    }
    rd->level = 1;                                 /* a level-2 branch: select its level-1 UID bytes first */
    rd->lb[0] = CASCADE_TAG;
    for (uint8_t i = 0; i < 3; i++) rd->lb[1 + i] = rd->stage.cl1[i];
    rd->lb[4] = (uint8_t)(rd->lb[0] ^ rd->lb[1] ^ rd->lb[2] ^ rd->lb[3]);
    rd->known = 40;
    select_level(now);
}

/* the tag in hand is done (read and halted, or gone): on to the next kept branch; 1 when the round is over */
static uint8_t next_branch(uint32_t now) {
    if (!rd->npend) return 1;                      /* no branch left: every tag has been read */
    if (rd->reads >= rd->r.cap + READS_MARGIN) {
        rd->r.too_many = 1;
        return 1;
    }
    rd->stage = rd->pend[--rd->npend];
    rd->staged = 1;
    send_wupa(now);                               /* then resume() at the kept branch */
    return 0;
}

/* an exchange ended: rx is 1 with an answer (its n bytes in in[], ErrorReg in err), 0 on a timeout.
 * Returns 1 when the round ended. */
static uint8_t step(uint8_t rx, uint8_t err, const uint8_t *in, uint8_t n, uint32_t now) {
    switch (rd->x) {
    case X_WUPA:
        if (!rx) return 1;                        /* nobody in the field: the round is over */
        rd->reads++;
        if (rd->staged) resume(now);               /* an ATQA, maybe a collided one: some tag is there */
        else new_level(1, now);
        return 0;
    case X_ANTICOLL: {
        if (!rx) return next_branch(now);         /* no tag under this prefix (any more) */
        uint8_t first = (uint8_t)(rd->known / 8u), keep = (uint8_t)((1u << (rd->known & 7u)) - 1u);
        for (uint8_t i = 0; i < n && first + i < 5u; i++) {
            uint8_t mask = i ? 0u : keep;          /* the first byte's low bits are those sent */
            rd->lb[first + i] = (uint8_t)((rd->lb[first + i] & mask) | (in[i] & (uint8_t)~mask));
        }
        if (err & COLL_ERR) {
            /* CollReg CollPos: the first collided bit, 1 = bit 0 of the first FIFO byte (RxAlign counted) */
            uint8_t coll = read_reg(CollReg);
            mfrc522_stats.collisions++;
            if (coll & 0x20) break;               /* CollPosNotValid */
            uint8_t pos = (uint8_t)(coll & 0x1F);
            uint8_t c = (uint8_t)(first * 8u + (pos ? pos : 32u) - 1u);
            if (c < rd->known || c >= 40u) break;
            keep_branch(c);                       /* the tags with a 0 there wait */
            rd->lb[c / 8u] |= (uint8_t)(1u << (c & 7u));
            rd->known = (uint8_t)(c + 1u);
            anticoll(now);
            return 0;
        }
        if (err || (uint8_t)(rd->lb[0] ^ rd->lb[1] ^ rd->lb[2] ^ rd->lb[3]) != rd->lb[4]) break;   /* BCC */
        rd->known = 40;
        select_level(now);
        return 0;
    }
    case X_SELECT:
        if (!rx) return next_branch(now);         /* the tag left */
        if (err || n != 3 || iso14443a_crc(in, 1) != (uint16_t)(in[1] | (in[2] << 8))) break;
        if (in[0] & 0x04) {                       /* UID not complete */
            if (rd->level != 1 || rd->lb[0] != CASCADE_TAG) break;   /* 10-byte UIDs: not card decks */
            for (uint8_t i = 0; i < 3; i++) rd->uid[i] = rd->lb[1 + i];
            if (rd->staged) {                      /* resuming a level-2 branch */
                rd->staged = 0;
                rd->level = 2;
                rd->known = rd->stage.known;
                for (uint8_t i = 0; i < 5; i++) rd->lb[i] = rd->stage.lb[i];
                anticoll(now);
            } else {
                new_level(2, now);
            }
            return 0;
        }
        if (rd->level == 1 && rd->lb[0] == CASCADE_TAG) break;
        found();
        {
            uint8_t hlta[4] = {PICC_HLTA, 0};
            with_crc(hlta, 2);
            start(X_HLTA, hlta, 32, now);         /* the tag keeps quiet until the next round's WUPA */
        }
        return 0;
    case X_HLTA:
        return next_branch(now);
    default:
        break;
    }
    /* a collision that could not be resolved, or a garbled answer: this round ends; the tags still in READY
     * fall back at the next round's WUPA (NTAG21x §8.4) and are read then */
    rd->r.collision = 1;
    return 1;
}

static uint8_t poll(uint32_t now);

const rfid_round *mfrc522_poll(uint8_t which, uint32_t now) {
    rd = &readers[which];
    return poll(now) ? &rd->r : 0;
}

static uint8_t poll(uint32_t now) {
    switch (rd->state) {
    case S_RESET:
        write_reg(CommandReg, CMD_SOFT_RESET);
        rd->at = now;
        rd->ok = 0;
        rd->state = S_BOOT;
        mfrc522_stats.reinits++;
        return 0;
    case S_BOOT:
        /* the soft reset: the oscillator starts again; PowerDown (CommandReg bit 4) clears when ready */
        if ((uint32_t)(now - rd->at) < 2u || (read_reg(CommandReg) & 0x10)) {
            if ((uint32_t)(now - rd->at) > 100u) rd->state = S_RESET;
            return 0;
        }
        rd->ok = configure();
        rd->state = S_IDLE;
        rd->last_check = now;
        if (!rd->ok) {                             /* no chip (or not this one): try again in a second */
            rd->state = S_RESET;
            rd->at = now;
        }
        return 0;
    case S_IDLE:
        if ((uint32_t)(now - rd->last_check) >= HEALTH_MS) {
            rd->last_check = now;
            if (!still_configured()) {
                rd->state = S_RESET;
                rd->ok = 0;
            }
            return 0;
        }
        if ((uint32_t)(now - rd->last_round) < RFID_POLL_MS) return 0;
        rd->last_round = now;
        rd->r.n = rd->r.collision = rd->r.too_many = 0;
        rd->reads = rd->staged = rd->npend = 0;
        send_wupa(now);               /* WUPA: also the tags halted by the last round */
        return 0;
    case S_SEND:
        send(now);
        return 0;
    case S_WAIT: {
        uint8_t irq = read_reg(ComIrqReg);
        if (!(irq & (RX_IRQ | TIMER_IRQ))) {
            if ((uint32_t)(now - rd->at) > EXCHANGE_STUCK_MS) {
                mfrc522_stats.stuck++;
                rd->state = S_RESET;               /* the chip stopped working: set it up again */
                rd->ok = 0;
            }
            return 0;
        }
        uint8_t in[5], n = 0, err = 0, rx = (irq & RX_IRQ) != 0;
        if (rx) {
            err = read_reg(ErrorReg);
            n = read_reg(FIFOLevelReg);
            if (n > sizeof in) {
                n = 0;
                err |= 0x10;                      /* more than any answer here: garbled */
            }
            for (uint8_t i = 0; i < n; i++) in[i] = read_reg(FIFODataReg);
        } else {
            mfrc522_stats.timeouts++;
        }
        write_reg(CommandReg, CMD_IDLE);
        if (step(rx, err, in, n, now)) {
            end_round();
            return 1;
        }
        return 0;
    }
    default:
        rd->state = S_RESET;
        return 0;
    }
}
