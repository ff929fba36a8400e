#include "keys.h"

#include <avr/io.h>
#include <util/atomic.h>

#include "bidding.h"
#include "board.h"

static uint32_t last_raw, state;
static uint8_t stable;
static volatile struct {
    uint8_t key;
    uint32_t at;
} events[16];
static volatile uint8_t head, tail;

void keys_init(void) {
    DDRA = 0;
    PORTA = 0xFF;                                 /* pull-ups: a key connects its pin to GND */
    DDRC = 0;
    PORTC = 0xFF;
    DDRF &= (uint8_t)~0x1Fu;                      /* PF0 Undo, PF1 Stop, PF2 Director, PF3 Earlier, PF4 Later */
    PORTF |= 0x1Fu;
}

void keys_sample(uint32_t now) {
    uint32_t raw = ~(PINA | ((uint32_t)PINC << 8) | ((uint32_t)(PINF & 0x1Fu) << 16)) & 0x1FFFFFul;
    if (raw != last_raw) {
        last_raw = raw;
        stable = 0;
        return;
    }
    if (stable >= KEY_STABLE_MS) return;
    if (++stable != KEY_STABLE_MS) return;        /* settled: the same level for KEY_STABLE_MS samples */
    uint32_t pressed = raw & ~state;
    state = raw;
    for (uint8_t k = 0; k < KEY_COUNT; k++) {
        if (!(pressed & (1ul << k))) continue;
        uint8_t next = (uint8_t)((head + 1u) & 15u);
        if (next == tail) return;                 /* 15 keys not yet handled: a stuck main loop, drop */
        events[head].key = k;
        events[head].at = now;
        head = next;
    }
}

uint8_t keys_next(uint8_t *key, uint32_t *at) {
    uint8_t got = 0;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        if (head != tail) {
            *key = events[tail].key;
            *at = events[tail].at;
            tail = (uint8_t)((tail + 1u) & 15u);
            got = 1;
        }
    }
    return got;
}
