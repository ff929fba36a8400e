#include "mfrc522.h"

#include <avr/io.h>
#include <util/delay.h>

/* registers (MFRC522 datasheet §9) */
#define CommandReg 0x01
#define ComIrqReg 0x04
#define ErrorReg 0x06
#define FIFODataReg 0x09
#define FIFOLevelReg 0x0A
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

#define PICC_WUPA 0x52
#define PICC_SEL_CL1 0x93
#define PICC_SEL_CL2 0x95
#define PICC_HLTA 0x50
#define CASCADE_TAG 0x88

static uint8_t spi(uint8_t b) {
    SPDR = b;
    while (!(SPSR & _BV(SPIF))) {
    }
    return SPDR;
}

static void select_chip(uint8_t on) {
    if (on) PORTB &= (uint8_t)~_BV(PB0);
    else PORTB |= _BV(PB0);
}

static void write_reg(uint8_t reg, uint8_t v) {
    select_chip(1);
    spi((uint8_t)((reg << 1) & 0x7E));
    spi(v);
    select_chip(0);
}

static uint8_t read_reg(uint8_t reg) {
    select_chip(1);
    spi((uint8_t)(0x80 | ((reg << 1) & 0x7E)));
    uint8_t v = spi(0);
    select_chip(0);
    return v;
}

uint8_t mfrc522_init(void) {
    DDRB |= _BV(PB0) | _BV(PB1) | _BV(PB2) | _BV(PB4);
    PORTB |= _BV(PB0) | _BV(PB4);                 /* chip deselected, out of hard reset */
    SPCR = _BV(SPE) | _BV(MSTR);                  /* mode 0, f/4 = 4 MHz (the chip takes up to 10 MHz) */
    write_reg(CommandReg, CMD_SOFT_RESET);
    _delay_ms(1);
    write_reg(TModeReg, 0x80);                    /* timer starts after each transmission */
    write_reg(TPrescalerReg, 0xA9);               /* 13.56 MHz / (2*169+1): 40 kHz */
    write_reg(TReloadRegH, 0x03);
    write_reg(TReloadRegL, 0xE8);                 /* 1000 ticks: a 25 ms receive timeout */
    write_reg(TxASKReg, 0x40);                    /* 100 % ASK */
    write_reg(ModeReg, 0x3D);                     /* CRC preset 0x6363 */
    write_reg(TxControlReg, (uint8_t)(read_reg(TxControlReg) | 0x03));   /* antenna on */
    uint8_t v = read_reg(VersionReg);
    return v == 0x91 || v == 0x92;
}

/* Sends n bytes (the last one with last_bits bits, 0 = 8) and returns the bytes the tag answered, or 0. */
static uint8_t transceive(const uint8_t *out, uint8_t n, uint8_t last_bits, uint8_t *in, uint8_t in_max) {
    write_reg(CommandReg, CMD_IDLE);
    write_reg(ComIrqReg, 0x7F);                   /* clear every interrupt request */
    write_reg(FIFOLevelReg, 0x80);                /* flush the FIFO */
    for (uint8_t i = 0; i < n; i++) write_reg(FIFODataReg, out[i]);
    write_reg(CommandReg, CMD_TRANSCEIVE);
    write_reg(BitFramingReg, (uint8_t)(0x80 | last_bits));   /* StartSend */
    uint8_t irq = 0;
    for (uint16_t spins = 0; spins < 2000u; spins++) {
        irq = read_reg(ComIrqReg);
        if (irq & 0x31) break;                    /* RxIRq, IdleIRq or TimerIRq */
    }
    write_reg(BitFramingReg, 0);
    if (!(irq & 0x30) || (irq & 0x01)) return 0;  /* timeout: no tag answered */
    if (read_reg(ErrorReg) & 0x1B) return 0;      /* collision, CRC, parity or protocol error */
    uint8_t got = read_reg(FIFOLevelReg);
    if (got > in_max) return 0;
    for (uint8_t i = 0; i < got; i++) in[i] = read_reg(FIFODataReg);
    return got;
}

/* Anticollision and select at one cascade level: 4 UID bytes (or CT + 3) in uid4; returns SAK or -1. */
static int16_t select_level(uint8_t sel, uint8_t *uid4) {
    uint8_t cmd[9] = {sel, 0x20};
    uint8_t in[5];
    if (transceive(cmd, 2, 0, in, sizeof in) != 5) return -1;
    if ((uint8_t)(in[0] ^ in[1] ^ in[2] ^ in[3]) != in[4]) return -1;   /* BCC */
    cmd[1] = 0x70;
    for (uint8_t i = 0; i < 5; i++) cmd[2 + i] = in[i];
    uint16_t crc = iso14443a_crc(cmd, 7);
    cmd[7] = (uint8_t)crc;
    cmd[8] = (uint8_t)(crc >> 8);
    uint8_t sak[3];
    if (transceive(cmd, 9, 0, sak, sizeof sak) != 3) return -1;
    if (iso14443a_crc(sak, 1) != (uint16_t)(sak[1] | (sak[2] << 8))) return -1;
    for (uint8_t i = 0; i < 4; i++) uid4[i] = in[i];
    return sak[0];
}

uint8_t mfrc522_still_present(const uint8_t *uid, uint8_t len) {
    uint8_t wupa = PICC_WUPA, atqa[2], cmd[2] = {PICC_SEL_CL1, 0x20}, in[5];
    if (transceive(&wupa, 1, 7, atqa, sizeof atqa) != 2) return 0;
    if (transceive(cmd, 2, 0, in, sizeof in) != 5) return 0;
    if ((uint8_t)(in[0] ^ in[1] ^ in[2] ^ in[3]) != in[4]) return 0;
    uint8_t expect[4] = {CASCADE_TAG, uid[0], uid[1], uid[2]};
    const uint8_t *want = len == 4 ? uid : expect;
    for (uint8_t i = 0; i < 4; i++)
        if (in[i] != want[i]) return 0;
    write_reg(CommandReg, CMD_IDLE);              /* leave the tag in READY: the next WUPA finds it again */
    return 1;
}

uint8_t mfrc522_read_uid(uint8_t *uid) {
    uint8_t wupa = PICC_WUPA, atqa[2];
    if (transceive(&wupa, 1, 7, atqa, sizeof atqa) != 2) return 0;
    uint8_t part[4];
    int16_t sak = select_level(PICC_SEL_CL1, part);
    if (sak < 0) return 0;
    uint8_t n;
    if (sak & 0x04) {                             /* UID not complete: a 7-byte UID, CT + 3 bytes here */
        if (part[0] != CASCADE_TAG) return 0;
        for (uint8_t i = 0; i < 3; i++) uid[i] = part[i + 1];
        sak = select_level(PICC_SEL_CL2, part);
        if (sak < 0 || (sak & 0x04)) return 0;   /* 10-byte UIDs (a third level) are not used by card decks */
        for (uint8_t i = 0; i < 4; i++) uid[3 + i] = part[i];
        n = 7;
    } else {
        for (uint8_t i = 0; i < 4; i++) uid[i] = part[i];
        n = 4;
    }
    uint8_t hlta[4] = {PICC_HLTA, 0};
    uint16_t crc = iso14443a_crc(hlta, 2);
    hlta[2] = (uint8_t)crc;
    hlta[3] = (uint8_t)(crc >> 8);
    transceive(hlta, 4, 0, atqa, sizeof atqa);   /* HALT: the tag stays quiet until the next WUPA */
    return n;
}
