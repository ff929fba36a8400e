/* MFRC522 (NXP) RFID front end on SPI: ISO/IEC 14443 A detection rounds without busy-waiting. Each call of
 * mfrc522_poll does one short step (a few register accesses on SPI) and returns: an exchange with the tags
 * runs on the chip while the main loop goes on, and its end is seen in ComIrqReg (RxIRq, or TimerIRq when the
 * chip's timer says no tag answered in time).
 *
 * A round: WUPA (wakes IDLE and HALT tags, NTAG21x §8.4), then per tag the bit-oriented anticollision
 * (collisions resolved bit by bit, ISO/IEC 14443-3 §6.4.3), SELECT at cascade levels 1 and 2, and HLTA
 * (the tag keeps quiet until the next WUPA). At each collided bit the walk follows the 1s and keeps the 0
 * branch; when a tag is done, WUPA again and resume at a kept branch (only tags under its prefix answer),
 * until no branch is left: every tag in the field is read once per round and left in HALT, the state NXP's
 * state machine expects. */
#ifndef MFRC522_H
#define MFRC522_H
#include <stdint.h>

#define MFRC522_UID_MAX 10u
#define RFID_TAGS_MAX 16u         /* tags the play zone reads in one round: a hand of 13 and a margin */
#define RFID_DUMMY_TAGS_MAX 4u    /* the dummy zone's: a card played and a few (more: TOO_MANY_TAGS) */
/* Two readers on the SPI bus, each with its own NSS: the play zone (PB0) and the dummy zone (PL0) */
#define RFID_READERS 2u
enum { RFID_PLAY = 0, RFID_DUMMY = 1 };

typedef struct {
    uint8_t len;
    uint8_t uid[7];               /* 4- or 7-byte UIDs (10-byte UIDs are not used by card decks) */
} rfid_uid;

typedef struct {
    uint8_t n;                    /* tags read this round */
    uint8_t collision;            /* a collision the round could not resolve (or a garbled answer) */
    uint8_t too_many;             /* more tags answered than the reader's capacity */
    uint8_t cap;                  /* the reader's capacity: RFID_TAGS_MAX or RFID_DUMMY_TAGS_MAX */
    rfid_uid *tag;                /* tag[0..n-1] */
} rfid_round;

typedef struct {
    uint32_t rounds, exchanges, timeouts, collisions, reinits, stuck;
} rfid_stats;

/* Sets the SPI up and starts both chips' reset; a reader becomes usable within a few polls. */
void mfrc522_init(void);
/* One step of reader `which`; the round's result when one ended (valid until that reader's next poll), else
 * 0. Starts a round when RFID_POLL_MS have passed. */
const rfid_round *mfrc522_poll(uint8_t which, uint32_t now);
/* 1 while the chip answers with a known version and keeps its set-up (checked every second) */
uint8_t mfrc522_healthy(uint8_t which);
extern rfid_stats mfrc522_stats;
extern uint16_t mfrc522_spi_ops;  /* register accesses so far (wraps): what a step cost on the SPI bus */
/* ISO/IEC 14443-3 CRC_A (also used by the emulation harness's tag model) */
uint16_t iso14443a_crc(const uint8_t *p, uint8_t n);
#endif
