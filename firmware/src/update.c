#include "update.h"

#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/wdt.h>

#include "../boot/boot_proto.h"
#include "../protocol/bt_proto.h"

#define ACK_GRACE_MS 50u              /* the session acks on its next poll; 50 ms let the ACK leave the wire */

static uint8_t pending;
static uint32_t asked_at;

void update_request(const uint8_t *p, uint32_t session_id, uint32_t now) {
    static const char magic[4] = BT_ENTER_MAGIC;
    if (bt_get32(p) != session_id) return;        /* meant for another unit, or an earlier session */
    for (uint8_t i = 0; i < 4; i++)
        if (p[4 + i] != (uint8_t)magic[i]) return;
    pending = 1;
    asked_at = now;
}

void update_poll(uint32_t now) {
    if (!pending || (uint32_t)(now - asked_at) < ACK_GRACE_MS) return;
    eeprom_update_byte((uint8_t *)BT_EE_BOOT_REQUEST, BT_BOOT_REQUESTED);
    cli();
    wdt_enable(WDTO_15MS);
    for (;;) {
    }
}
