/* The seat unit's boot loader: 4 KiB at the top of the ATmega2560's flash (boot_proto.h has the layout and the
 * messages; docs/hardware.md the fuses). BOOTRST makes it run first at every reset. It starts the application
 * at once unless the application asked for an update (the EEPROM request byte) or the application is not
 * valid (no record, or the flash's CRC-32 differs from it). Otherwise it answers the host on USART0 with the
 * wire protocol's frames (protocol/frame.c: COBS, CRC-32), polled, no interrupts. Any write erases the
 * application's record first; only a COMMIT whose CRC matches the flash writes it back. So an update cut off
 * anywhere (cable, power) leaves a unit that boots into this loader again, ready for the next attempt. */
#include <avr/boot.h>
#include <avr/eeprom.h>
#include <avr/fuse.h>
#include <avr/lock.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/wdt.h>
#include <stdint.h>

#include "../protocol/frame.h"
#include "../src/board.h"
#include "boot_proto.h"

/* Fuses (ATmega2560 data sheet, "Memory Programming": "Fuse Bits"; the boot section sizes: "Boot Loader
 * Support", "Boot Size Configuration"), kept in this ELF's .fuse section, since the boot loader is what a programmer flashes first
 * (docs/hardware.md §4): low 0xFF (full-swing crystal, slow start-up); high 0xD2 (SPI programming on, EEPROM
 * kept through a chip erase, JTAG off, BOOTSZ1:0 = 01: a 2048-word boot section at word 0x1F800, BOOTRST
 * programmed: reset starts here); extended 0xFC (brown-out detection at 4.3 V: 16 MHz needs 4.5-5.5 V,
 * "Speed Grades"). Lock bits 0xEF (BLB1 mode 2, "Boot Loader Lock Bits"): the application cannot SPM over this
 * section. */
FUSES = {.low = 0xFF, .high = 0xD2, .extended = 0xFC};
LOCKBITS = 0xEF;

#define UBRR_VALUE ((F_CPU + 4ul * BAUD) / (8ul * BAUD) - 1ul)   /* as src/uart.c: 500000 Bd, U2X, 0 % */
#define IDLE_OVERFLOWS 8u          /* Timer1 at clk/1024 overflows every 4.2 s: ~34 s without a request */

static uint8_t rx[BT_OVERHEAD + 4u + BT_BOOT_PAGE + 8u];   /* one encoded WRITE: header, address, page, COBS */
static uint8_t scratch[BT_OVERHEAD + 10u + BT_APP_VERSION_MAX];   /* the largest answer: BOOT_INFO */
static uint8_t wire[sizeof scratch + 2u];
static uint8_t page[BT_BOOT_PAGE];
static uint8_t record_erased;
static uint8_t valid;                  /* app_valid(), known at entry, kept up to date by WRITE and COMMIT */

static void put(uint8_t b) {
    while (!(UCSR0A & _BV(UDRE0))) {
    }
    UDR0 = b;
}

static void send(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t n) {
    bt_frame f = {BT_VERSION, type, 0, seq, 0, n, payload};
    size_t len = bt_frame_encode(&f, scratch, wire);
    for (size_t i = 0; i < len; i++) put(wire[i]);
}

static uint32_t flash_crc(uint32_t len) {
    uint32_t crc = 0xFFFFFFFFul;
    for (uint32_t a = 0; a < len; a++) {
        crc ^= pgm_read_byte_far(a);
        for (uint8_t k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320ul & (0ul - (crc & 1ul)));
        if (!(uint8_t)a) wdt_reset();
    }
    return ~crc;
}

static uint8_t app_valid(void) {
    if (eeprom_read_word((const uint16_t *)BT_EE_APP_MAGIC_AT) != BT_APP_MAGIC) return 0;
    uint32_t len = eeprom_read_dword((const uint32_t *)BT_EE_APP_LENGTH_AT);
    return len && len <= BT_APP_MAX && flash_crc(len) == eeprom_read_dword((const uint32_t *)BT_EE_APP_CRC_AT);
}

static void info(uint8_t seq, uint8_t why) {
    uint8_t p[10 + BT_APP_VERSION_MAX];
    p[0] = BT_BOOT_LOADER_VERSION;
    p[1] = why;
    bt_put16(p + 2, BT_BOOT_PAGE);
    bt_put32(p + 4, BT_APP_MAX);
    p[8] = valid;
    uint8_t n = valid ? eeprom_read_byte((const uint8_t *)BT_EE_APP_VERSION_AT) : 0;
    if (n > BT_APP_VERSION_MAX) n = 0;
    p[9] = n;
    eeprom_read_block(p + 10, (const void *)(BT_EE_APP_VERSION_AT + 1u), n);
    send(BT_BOOT_INFO, seq, p, (uint8_t)(10u + n));
}

static void result(uint8_t seq, uint8_t type, uint8_t status, uint32_t value) {
    uint8_t p[6] = {type, status};
    bt_put32(p + 2, value);
    send(BT_BOOT_RESULT, seq, p, 6);
}

/* one page: erase, fill, write, read back */
static uint8_t write_page(uint32_t at) {
    boot_page_erase(at);
    boot_spm_busy_wait();
    for (uint16_t i = 0; i < BT_BOOT_PAGE; i += 2) boot_page_fill(at + i, page[i] | (uint16_t)page[i + 1] << 8);
    boot_page_write(at);
    boot_spm_busy_wait();
    boot_rww_enable();                            /* the application section readable again */
    for (uint16_t i = 0; i < BT_BOOT_PAGE; i++)
        if (pgm_read_byte_far(at + i) != page[i]) return BT_BOOT_VERIFY_FAILED;
    return BT_BOOT_OK;
}


static void start_app(void) {
    __asm__ volatile("jmp 0");                    /* IJMP/EICALL would need EIND: the loader's is not 0 */
}

/* Into the application as if from reset, without a reset: a watchdog reset here would reach the host as a
 * watchdog failure (UNIT_STATUS reset_cause); GPIOR0 0 says "no reset since the last report". */
static void leave(void) {
    while (!(UCSR0A & _BV(TXC0))) {               /* the last answer leaves the wire first */
    }
    UCSR0B = 0;
    UCSR0A = _BV(TXC0);
    TCCR1B = 0;
    TIFR1 = _BV(TOV1);
    wdt_disable();
    GPIOR0 = 0;
    start_app();
}

static void on_request(const bt_frame *f) {
    const uint8_t *p = f->payload;
    uint16_t n = f->length;
    if (!(f->flags & BT_F_FROM_HOST)) return;     /* our own bytes echoed back */
    switch (f->type) {
    case BT_BOOT_QUERY: info(f->seq, 0); break;
    case BT_BOOT_WRITE: {
        uint32_t at = n > 4u ? bt_get32(p) : 1u;
        if (n < 5u || n > 4u + BT_BOOT_PAGE || at % BT_BOOT_PAGE || at >= BT_APP_MAX) {
            result(f->seq, f->type, BT_BOOT_BAD_ADDRESS, at);
            break;
        }
        if (!record_erased) {                     /* from here on the application is not valid */
            eeprom_update_word((uint16_t *)BT_EE_APP_MAGIC_AT, 0xFFFFu);
            record_erased = 1;
        }
        valid = 0;
        for (uint16_t i = 0; i < BT_BOOT_PAGE; i++) page[i] = i + 4u < n ? p[4 + i] : 0xFFu;
        result(f->seq, f->type, write_page(at), at);
        break;
    }
    case BT_BOOT_COMMIT: {
        uint32_t len = n >= 9u ? bt_get32(p) : 0u;
        uint8_t vn = n >= 9u ? p[8] : 0xFFu;
        if (!len || len > BT_APP_MAX || vn > BT_APP_VERSION_MAX || n != 9u + vn) {
            result(f->seq, f->type, BT_BOOT_BAD_REQUEST, 0);
            break;
        }
        uint32_t crc = flash_crc(len);
        if (crc != bt_get32(p + 4)) {
            result(f->seq, f->type, BT_BOOT_CRC_MISMATCH, crc);
            break;
        }
        eeprom_update_word((uint16_t *)BT_EE_APP_MAGIC_AT, 0xFFFFu);
        eeprom_update_dword((uint32_t *)BT_EE_APP_LENGTH_AT, len);
        eeprom_update_dword((uint32_t *)BT_EE_APP_CRC_AT, crc);
        eeprom_update_block(p + 8, (void *)BT_EE_APP_VERSION_AT, 1u + vn);
        eeprom_update_word((uint16_t *)BT_EE_APP_MAGIC_AT, BT_APP_MAGIC);   /* last: the record is whole */
        record_erased = 0;
        valid = 1;
        result(f->seq, f->type, BT_BOOT_OK, crc);
        break;
    }
    case BT_BOOT_START:
        if (!valid) {
            result(f->seq, f->type, BT_BOOT_NO_VALID_APP, 0);
            break;
        }
        result(f->seq, f->type, BT_BOOT_OK, 0);
        leave();
        break;
    default: break;
    }
}


int main(void) {
    uint8_t cause = MCUSR;
    MCUSR = 0;
    wdt_disable();                                /* after a watchdog reset it runs on at 16 ms (§12.5) */
    uint8_t asked = eeprom_read_byte((const uint8_t *)BT_EE_BOOT_REQUEST) == BT_BOOT_REQUESTED;
    if (asked) eeprom_update_byte((uint8_t *)BT_EE_BOOT_REQUEST, 0xFFu);
    valid = app_valid();
    if (!asked && valid) {
        GPIOR0 = cause;                           /* the application reports the reset cause (MCUSR is 0 now) */
        start_app();
    }
    wdt_enable(WDTO_2S);
    UBRR0 = UBRR_VALUE;
    UCSR0A = _BV(U2X0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0);
    TCCR1B = _BV(CS12) | _BV(CS10);               /* clk/1024: the idle time-out */
    bt_decoder dec;
    bt_decoder_init(&dec, rx, sizeof rx, 4u + BT_BOOT_PAGE);
    put(0);                                       /* ends whatever the host had half sent */
    info(0, asked ? BT_BOOT_WHY_ASKED : BT_BOOT_WHY_NO_APP);
    uint8_t idle = 0;
    for (;;) {
        wdt_reset();
        if (TIFR1 & _BV(TOV1)) {                  /* asked for, never used: back to a valid application */
            TIFR1 = _BV(TOV1);
            if (++idle >= IDLE_OVERFLOWS && asked && valid) leave();
        }
        if (!(UCSR0A & _BV(RXC0))) continue;
        if (bt_decoder_feed(&dec, UDR0) == BT_RX_FRAME) {
            idle = 0;
            on_request(&dec.frame);
        }
    }
}
