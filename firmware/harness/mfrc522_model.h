/* A model of the MFRC522 (NXP MFRC522 datasheet Rev. 3.9) on the SPI bus with up to MFRC522_MODEL_TAGS
 * NTAG21x tags (NXP NTAG213/215/216 datasheet Rev. 3.2) in its field, as strict as the chips:
 *   - the registers and the 64-byte FIFO (§8.3, §9.3.1); the Transceive command (§10.3.1.8): StartSend
 *     sends the FIFO; the frame takes its air time (ISO/IEC 14443-2 §8.1: one bit is 128/fc), the tags answer
 *     after the frame delay time (ISO/IEC 14443-3 §6.2.1.1) and RxIRq rises when the answer has arrived;
 *   - the timer (§8.5, §9.3.3.10): TModeReg/TPrescalerReg/TReloadReg, started at the end of a transmission
 *     when TAuto is set, stopped when an answer starts; TimerIRq rises only when the programmed time has
 *     elapsed in emulated time (t = (2 * TPrescaler + 1) * (TReload + 1) / 13.56 MHz);
 *   - the antenna (TxControlReg Tx1RFEn/Tx2RFEn): a tag is powered only while the field is on; without power
 *     it forgets its state (back to IDLE); a soft reset switches the field off;
 *   - each tag's state machine (NTAG21x §8.4, ISO/IEC 14443-3 §6.3): IDLE, READY1, READY2, ACTIVE, HALT.
 *     REQA wakes IDLE tags only, WUPA wakes IDLE and HALT tags; anticollision and SELECT at cascade levels 1
 *     and 2 with bit-oriented frames (NVB, TxLastBits/RxAlign); READ (4 pages) and HLTA in ACTIVE; any
 *     unexpected frame in READY1/READY2/ACTIVE returns the tag to IDLE, or to HALT when it was woken from
 *     HALT (NTAG21x §8.4 remark), without an answer;
 *   - several tags answering at once: their answers superpose bit by bit; the first differing bit is a
 *     collision: ErrorReg CollErr, CollReg CollPos (counted from bit 1 of the first FIFO byte, RxAlign
 *     included; CollPosNotValid beyond 32), bits after it cleared unless CollReg ValuesAfterColl is set.
 * Not modelled: MIFARE Classic authentication, CalcCRC, the NTAG's WRITE/GET_VERSION/password commands (a
 * CRC-correct unknown command in ACTIVE gets the 4-bit NAK), RF noise, tags' power-up time. */
#ifndef MFRC522_MODEL_H
#define MFRC522_MODEL_H
#include <stdint.h>

#define MFRC522_MODEL_TAGS 20

enum { NTAG_IDLE = 0, NTAG_READY1, NTAG_READY2, NTAG_ACTIVE, NTAG_HALT };

typedef struct {
    uint8_t uid[7];               /* 7-byte UIDs (NTAG21x §8.2); 4-byte UIDs are accepted for other tags */
    uint8_t uid_len, state, from_halt;
} mfrc522_tag;

typedef struct {
    uint8_t regs[64];
    uint8_t fifo[64], fifo_len, fifo_rd;
    mfrc522_tag tags[MFRC522_MODEL_TAGS];
    uint8_t ntags;
    uint8_t selected, index, addr, reading;
    uint64_t now_ns;              /* emulated time, set by the harness before each SPI byte */
    /* a transceive under way */
    uint8_t busy, answer_bits_n, answered;
    uint64_t tx_end_ns, rx_start_ns, rx_end_ns;
    uint8_t answer[64];           /* the (superposed) answer, bit 0 of byte 0 first */
    uint16_t answer_bits;
    int16_t coll_bit;             /* first collided bit of the answer, -1: none */
    /* the timer */
    uint8_t timer_running;
    uint64_t timer_start_ns, timer_end_ns;
    /* counters */
    uint32_t transceives, answers, collisions, timer_irqs, tag_fallbacks;
} mfrc522_model;

void mfrc522_model_reset(mfrc522_model *m);                       /* power-on and soft reset */
void mfrc522_model_chip_select(mfrc522_model *m, uint8_t level);  /* the NSS pin: 0 = selected */
uint8_t mfrc522_model_spi(mfrc522_model *m, uint8_t mosi);        /* one byte each way */
/* the field's content: place replaces every tag (len 0: field empty); add lays one more tag */
void mfrc522_model_place(mfrc522_model *m, const uint8_t *uid, uint8_t len);
int mfrc522_model_add(mfrc522_model *m, const uint8_t *uid, uint8_t len);
#endif
