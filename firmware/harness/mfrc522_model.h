/* A model of the MFRC522 on the SPI bus with at most one ISO/IEC 14443 A tag (4- or 7-byte UID) in its field:
 * register reads and writes, the FIFO, and the Transceive command answering REQA/WUPA, anticollision and
 * SELECT at cascade levels 1 and 2 (BCC and CRC_A checked), HLTA. Not modelled: RF timing (a transceive
 * completes at once; a missing tag times out at once), collisions, MIFARE authentication, CalcCRC. */
#ifndef MFRC522_MODEL_H
#define MFRC522_MODEL_H
#include <stdint.h>

typedef struct {
    uint8_t regs[64];
    uint8_t fifo[64], fifo_len, fifo_rd;
    uint8_t uid[10], uid_len, present;
    uint8_t selected, index, addr, reading;
    uint32_t transceives, answers;
} mfrc522_model;

void mfrc522_model_reset(mfrc522_model *m);
void mfrc522_model_chip_select(mfrc522_model *m, uint8_t level);     /* the NSS pin: 0 = selected */
uint8_t mfrc522_model_spi(mfrc522_model *m, uint8_t mosi);           /* one byte each way */
void mfrc522_model_place(mfrc522_model *m, const uint8_t *uid, uint8_t len);   /* len 0: field empty */
#endif
