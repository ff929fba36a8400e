/* Seat unit on an ATmega2560 at 16 MHz: pin assignment (docs/hardware.md has the wiring table).
 *   USART0 (PE0 RXD0, PE1 TXD0): the seat reader's link   USART1 (PD2 RXD1, PD3 TXD1): the bidding box's link
 *   SPI: PB0 SS -> MFRC522 SDA/NSS, PB1 SCK, PB2 MOSI, PB3 MISO; PB4 -> MFRC522 RST
 *   keys (to GND, internal pull-ups): PA0..PA6 levels 1..7, PA7 Pass; PC0..PC4 C D H S NT, PC5 X, PC6 XX,
 *   PC7 Alert; PF0 Undo, PF1 Stop, PF2 Director, PF3 Earlier, PF4 Later (the auction's rounds on the display)
 *   TWI: PD0 SCL, PD1 SDA -> SSD1306 display (I2C 0x3C); PB5 -> its RES
 *   feedback (active high): PB7 the acknowledgement LED (the Mega board's own "L" LED too), PB6 the piezo
 *   buzzer's driver transistor */
#ifndef BOARD_H
#define BOARD_H

#define BAUD 500000ul         /* 16 MHz / (8 * 4): exact with U2X (115200 Bd would be +2.1 % off) */
#define RFID_POLL_MS 20u          /* one REQA/anticollision round every 20 ms */
#define RFID_ABSENT_POLLS 3u      /* a tag unseen for 3 polls in a row has left the antenna */
#define KEY_STABLE_MS 5u          /* a key state counts after 5 equal 1 ms samples */
#define FEEDBACK_MS 80u           /* one acknowledgement blink (and each of a refusal's three, beeped) */
#ifndef FIRMWARE_VERSION                  /* a test builds an older one: make FW_DEFS='-DFIRMWARE_VERSION=...' */
#define FIRMWARE_VERSION "seatunit-1.3.0"
#endif

#endif
