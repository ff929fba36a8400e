/* What the player sees and hears when the host has a card or a call: the acknowledgement LED (PH3) blinks once
 * for FEEDBACK_MS when the host acknowledged it; a refused call blinks it three times with the piezo buzzer
 * (PH4) sounding each blink. Stepped from the clock interrupt: each blink lasts FEEDBACK_MS to the
 * millisecond, whatever the main loop is doing. */
#ifndef FEEDBACK_H
#define FEEDBACK_H
void feedback_init(void);
void feedback_taken(void);      /* one blink (a refusal still under way is not cut short) */
void feedback_refused(void);    /* three blinks and beeps, 80 ms on, 80 ms off */
void feedback_tick(void);       /* interrupt context, every millisecond */
#endif
