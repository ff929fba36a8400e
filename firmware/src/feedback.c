#include "feedback.h"

#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"

#define LED _BV(PH3)
#define BUZZER _BV(PH4)

/* Port H carries nothing else: the interrupt alone writes it (after the set-up), so no read-modify-write of
 * another context can undo a change. */
static volatile uint8_t phases;     /* phases left, the current one included: odd on, even off */
static volatile uint8_t beeps;      /* the pattern sounds the buzzer too */
static volatile uint8_t left_ms;    /* of the current phase */

void feedback_init(void) {
    PORTH &= (uint8_t)~(LED | BUZZER);
    DDRH |= LED | BUZZER;
}

static void show(void) {
    uint8_t on = phases & 1u;
    PORTH = (uint8_t)((PORTH & ~(LED | BUZZER)) | (on ? LED : 0u) | (on && beeps ? BUZZER : 0u));
}

static void start(uint8_t n, uint8_t beep) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        if (beep || !beeps || phases <= 1u) {     /* a blink does not cut a refusal's pattern short */
            phases = n;
            beeps = beep;
            left_ms = FEEDBACK_MS;
            show();
        }
    }
}

void feedback_taken(void) { start(1u, 0u); }
void feedback_refused(void) { start(5u, 1u); }

void feedback_tick(void) {
    if (!phases || --left_ms) return;
    phases--;
    left_ms = FEEDBACK_MS;
    show();
}
