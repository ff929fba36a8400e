#include "ssd1306.h"

#include <avr/io.h>
#include <avr/pgmspace.h>
#include <util/delay.h>
#include <util/twi.h>

#include "font5x7.h"

#define TWI_HZ 400000ul
#define CONTROL_COMMANDS 0x00u
#define CONTROL_DATA 0x40u

static uint8_t present;

static uint8_t twi_wait(void) {
    for (uint16_t n = 0; n < 20000u; n++)          /* ~5 ms: a byte takes 25 us at 400 kHz */
        if (TWCR & (1u << TWINT)) return 1;
    return 0;
}

static uint8_t twi_send(uint8_t byte) {
    TWDR = byte;
    TWCR = (1u << TWINT) | (1u << TWEN);
    return twi_wait() && (TW_STATUS == TW_MT_DATA_ACK || TW_STATUS == TW_MT_SLA_ACK);
}

/* START and the display's address with the control byte; 0 when nobody answers. */
static uint8_t twi_begin(uint8_t control) {
    TWCR = (1u << TWINT) | (1u << TWSTA) | (1u << TWEN);
    if (!twi_wait() || (TW_STATUS != TW_START && TW_STATUS != TW_REP_START)) return 0;
    return twi_send((uint8_t)(SSD1306_ADDRESS << 1)) && twi_send(control);
}

static void twi_end(void) {
    TWCR = (1u << TWINT) | (1u << TWSTO) | (1u << TWEN);
    for (uint16_t n = 0; n < 20000u && (TWCR & (1u << TWSTO)); n++) {
    }                                              /* the STOP is out before the next START */
}

static const uint8_t setup[] PROGMEM = {
    0xAE,             /* display off */
    0xD5, 0x80,       /* clock divide */
    0xA8, 0x3F,       /* 64 rows */
    0xD3, 0x00,       /* no offset */
    0x40,             /* start line 0 */
    0x8D, 0x14,       /* charge pump on (3.3 V modules without VCC) */
    0x20, 0x02,       /* page addressing: a line is one page */
    0xA1, 0xC8,       /* segment remap, COM scan reversed: text upright on the usual modules */
    0xDA, 0x12,       /* COM pins */
    0x81, 0xCF,       /* contrast */
    0xD9, 0xF1,       /* pre-charge */
    0xDB, 0x40,       /* VCOMH */
    0xA4, 0xA6,       /* show RAM, not inverted */
    0xAF,             /* display on */
};

uint8_t ssd1306_init(void) {
    DDRB |= (1u << PB5);                           /* RES: a low pulse clears the controller */
    PORTB &= (uint8_t)~(1u << PB5);
    _delay_us(10);
    PORTB |= (1u << PB5);
    TWSR = 0;                                      /* prescaler 1 */
    TWBR = (uint8_t)((F_CPU / TWI_HZ - 16u) / 2u);
    present = twi_begin(CONTROL_COMMANDS);
    for (uint8_t i = 0; present && i < sizeof setup; i++) present = twi_send(pgm_read_byte(&setup[i]));
    twi_end();
    for (uint8_t line = 0; present && line < SSD1306_LINES; line++) ssd1306_line(line, "");
    return present;
}

void ssd1306_line(uint8_t line, const char *text) {
    if (!present) return;
    uint8_t ok = twi_begin(CONTROL_COMMANDS) && twi_send((uint8_t)(0xB0u | line)) && twi_send(0x00) &&
                 twi_send(0x10);                   /* page `line`, column 0 */
    twi_end();
    if (!ok || !twi_begin(CONTROL_DATA)) {
        twi_end();
        return;
    }
    uint8_t ended = 0;
    for (uint8_t i = 0; i < SSD1306_COLUMNS; i++) {
        if (!ended && !text[i]) ended = 1;
        uint8_t glyph = font_index(ended ? ' ' : text[i]);
        for (uint8_t col = 0; col < FONT_WIDTH; col++) twi_send(font_column(glyph, col));
        twi_send(0);
    }
    twi_send(0);
    twi_send(0);
    twi_end();
}
