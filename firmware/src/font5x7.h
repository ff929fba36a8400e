/* A 5x7 font for ' ' .. 'Z' (the display shows upper case: lower case is folded, anything else becomes '?').
 * Shared by the firmware (in flash) and the emulation harness (which reads the display's pixels back as text).
 * A glyph is 5 columns, bit 0 the top pixel; a character cell is 6 columns (one blank). */
#ifndef FONT5X7_H
#define FONT5X7_H
#include <stdint.h>

#define FONT_FIRST ' '
#define FONT_LAST 'Z'
#define FONT_WIDTH 5u
#define FONT_CELL 6u

/* the glyph index of a character (folded to the font's range) */
static inline uint8_t font_index(char c) {
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    if (c < FONT_FIRST || c > FONT_LAST) c = '?';
    return (uint8_t)(c - FONT_FIRST);
}

/* column `col` (0..4) of glyph `index` */
uint8_t font_column(uint8_t index, uint8_t col);
#endif
