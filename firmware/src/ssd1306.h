/* A 128x64 SSD1306 OLED on the TWI bus (I2C address 0x3C; PD0 SCL, PD1 SDA, PB5 its RES pin), driven as
 * 8 text lines of 21 characters. No frame buffer: each line is written straight to its display page. */
#ifndef SSD1306_H
#define SSD1306_H
#include <stdint.h>

#define SSD1306_ADDRESS 0x3Cu
#define SSD1306_LINES 8u
#define SSD1306_COLUMNS 21u          /* 21 cells of 6 columns = 126 of the 128 */

/* Reset and set up the display. Returns 0 when no display answers (the unit then runs without one). */
uint8_t ssd1306_init(void);
/* Write `text` (up to 21 characters, NUL-terminated or full; the rest of the line is blanked) on line `line`. */
void ssd1306_line(uint8_t line, const char *text);
#endif
