#ifndef CLOCK_H
#define CLOCK_H
#include <stdint.h>
void clock_init(void);
uint32_t clock_ms(void);          /* milliseconds since boot (Timer0 compare match, 1 kHz) */
#endif
