#include "clock.h"

#include "feedback.h"
#include "keys.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

static volatile uint32_t ticks;

ISR(TIMER0_COMPA_vect) {
    ticks++;
    keys_sample(ticks);               /* keys are sampled here: a long SPI exchange in the main loop cannot miss one */
    feedback_tick();
}

void clock_init(void) {
    TCCR0A = _BV(WGM01);                  /* CTC */
    TCCR0B = _BV(CS01) | _BV(CS00);       /* 16 MHz / 64 = 250 kHz */
    OCR0A = 249;                          /* 250 kHz / 250 = 1 kHz */
    TIMSK0 = _BV(OCIE0A);
}

uint32_t clock_ms(void) {
    uint32_t t;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { t = ticks; }
    return t;
}
