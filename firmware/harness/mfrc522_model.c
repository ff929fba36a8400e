#include "mfrc522_model.h"

#include <string.h>

uint16_t iso14443a_crc(const uint8_t *p, uint8_t n);

enum { CommandReg = 0x01, ComIrqReg = 0x04, ErrorReg = 0x06, FIFODataReg = 0x09, FIFOLevelReg = 0x0A,
       BitFramingReg = 0x0D, VersionReg = 0x37 };
enum { CMD_TRANSCEIVE = 0x0C, CMD_SOFT_RESET = 0x0F };

void mfrc522_model_reset(mfrc522_model *m) {
    uint8_t uid[10], len = m->uid_len, present = m->present;
    memcpy(uid, m->uid, sizeof uid);
    memset(m, 0, sizeof *m);
    memcpy(m->uid, uid, sizeof uid);
    m->uid_len = len;
    m->present = present;
    m->regs[CommandReg] = 0x20;
    m->regs[VersionReg] = 0x92;                   /* MFRC522 version 2.0 */
}

void mfrc522_model_place(mfrc522_model *m, const uint8_t *uid, uint8_t len) {
    m->present = len > 0;
    m->uid_len = len;
    if (len) memcpy(m->uid, uid, len);
}

static void answer(mfrc522_model *m, const uint8_t *p, uint8_t n) {
    memcpy(m->fifo, p, n);
    m->fifo_len = n;
    m->fifo_rd = 0;
    m->regs[ComIrqReg] |= 0x30;                   /* RxIRq | IdleIRq */
    m->answers++;
}

/* the cascade-level bytes of the UID: 4 bytes, or CT + 3 bytes at level 1 of a 7-byte UID */
static void level_bytes(const mfrc522_model *m, uint8_t level, uint8_t *out) {
    if (m->uid_len == 4) memcpy(out, m->uid, 4);
    else if (level == 1) {
        out[0] = 0x88;
        memcpy(out + 1, m->uid, 3);
    } else memcpy(out, m->uid + 3, 4);
    out[4] = (uint8_t)(out[0] ^ out[1] ^ out[2] ^ out[3]);
}

static void transceive(mfrc522_model *m) {
    uint8_t in[64], n = (uint8_t)(m->fifo_len - m->fifo_rd);
    memcpy(in, m->fifo + m->fifo_rd, n);
    m->fifo_len = m->fifo_rd = 0;
    m->transceives++;
    uint8_t bits = m->regs[BitFramingReg] & 7u;
    if (!m->present || n == 0) goto silent;
    if (n == 1 && bits == 7 && (in[0] == 0x26 || in[0] == 0x52)) {           /* REQA / WUPA */
        uint8_t atqa[2] = {m->uid_len == 4 ? 0x04 : 0x44, 0x00};
        answer(m, atqa, 2);
        return;
    }
    if (bits == 0 && n >= 2 && (in[0] == 0x93 || (in[0] == 0x95 && m->uid_len == 7))) {
        uint8_t level = in[0] == 0x93 ? 1 : 2, lb[5];
        level_bytes(m, level, lb);
        if (n == 2 && in[1] == 0x20) {                                          /* ANTICOLLISION */
            answer(m, lb, 5);
            return;
        }
        if (n == 9 && in[1] == 0x70 && !memcmp(in + 2, lb, 5) &&
            iso14443a_crc(in, 7) == (uint16_t)(in[7] | (in[8] << 8))) {        /* SELECT */
            uint8_t sak[3] = {(uint8_t)(m->uid_len == 7 && level == 1 ? 0x04 : 0x00)};
            uint16_t crc = iso14443a_crc(sak, 1);
            sak[1] = (uint8_t)crc;
            sak[2] = (uint8_t)(crc >> 8);
            answer(m, sak, 3);
            return;
        }
    }
silent:                                           /* no tag, HLTA, or a frame no tag answers: timeout */
    m->regs[ComIrqReg] |= 0x01;
}

static uint8_t read_reg(mfrc522_model *m, uint8_t reg) {
    switch (reg) {
    case FIFODataReg: return m->fifo_rd < m->fifo_len ? m->fifo[m->fifo_rd++] : 0;
    case FIFOLevelReg: return (uint8_t)(m->fifo_len - m->fifo_rd);
    default: return m->regs[reg];
    }
}

static void write_reg(mfrc522_model *m, uint8_t reg, uint8_t v) {
    switch (reg) {
    case CommandReg:
        if ((v & 0x0F) == CMD_SOFT_RESET) mfrc522_model_reset(m);
        else m->regs[CommandReg] = v;
        break;
    case ComIrqReg:
        if (v & 0x80) m->regs[ComIrqReg] |= v & 0x7F;
        else m->regs[ComIrqReg] &= (uint8_t)~(v & 0x7F);
        break;
    case FIFOLevelReg:
        if (v & 0x80) m->fifo_len = m->fifo_rd = 0;
        break;
    case FIFODataReg:
        if (m->fifo_len < sizeof m->fifo) m->fifo[m->fifo_len++] = v;
        break;
    case BitFramingReg:
        m->regs[BitFramingReg] = v & 0x7F;
        if ((v & 0x80) && (m->regs[CommandReg] & 0x0F) == CMD_TRANSCEIVE) transceive(m);
        break;
    case VersionReg:
        break;
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
