/* The application's half of the update path (boot/boot_proto.h): ENTER_BOOTLOADER checked and acted on. */
#ifndef UPDATE_H
#define UPDATE_H
#include <stdint.h>

/* ENTER_BOOTLOADER from the host (a checked 8-byte payload): taken only when it names this session. */
void update_request(const uint8_t *payload, uint32_t session_id, uint32_t now);
/* Called every tick: once the ACK has had time to leave, sets the EEPROM request and lets the watchdog
 * reset the chip into the boot loader. Never returns then. */
void update_poll(uint32_t now);
#endif
