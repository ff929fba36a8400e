/* The 21 bidding-box keys (bidding.h): sampled every millisecond (from the clock interrupt), debounced, and queued as
 * key-down events with the time they settled. */
#ifndef KEYS_H
#define KEYS_H
#include <stdint.h>
void keys_init(void);
void keys_sample(uint32_t now);                    /* interrupt context */
uint8_t keys_next(uint8_t *key, uint32_t *at);     /* 1 and the oldest queued key-down, or 0 */
#endif
