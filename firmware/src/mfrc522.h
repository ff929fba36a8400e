/* MFRC522 (NXP) RFID front end on SPI: ISO/IEC 14443 A card detection, anticollision and select, giving
 * the UID (4 or 7 bytes). */
#ifndef MFRC522_H
#define MFRC522_H
#include <stdint.h>

#define MFRC522_UID_MAX 10u

/* Resets the chip and switches the antenna on; 1 when the chip answered with a known version. */
uint8_t mfrc522_init(void);
/* One detection round: wakes any tag in the field (WUPA) and selects it. Returns the UID length, 0 when no
 * tag answered (or the exchange failed: the next round tries again). */
uint8_t mfrc522_read_uid(uint8_t *uid);
/* A cheaper check that the tag read last is still in the field: WUPA and the level-1 anticollision only
 * (no SELECT, no HALT); 1 when the level-1 bytes match uid (4- or 7-byte), 0 otherwise. */
uint8_t mfrc522_still_present(const uint8_t *uid, uint8_t len);
/* ISO/IEC 14443-3 CRC_A (also used by the emulation harness's tag model) */
uint16_t iso14443a_crc(const uint8_t *p, uint8_t n);
#endif
