/* The bidding box's keys -> calls: a level key then a strain key makes a bid; Pass, X and XX are calls on
 * their own; Alert (pressed before the call) marks the call alerted. Portable: no AVR dependency. */
#ifndef BIDDING_H
#define BIDDING_H
#include <stdint.h>

enum key {
    KEY_L1 = 0, KEY_L7 = 6, KEY_PASS = 7,
    KEY_C = 8, KEY_D, KEY_H, KEY_S, KEY_NT, KEY_X, KEY_XX, KEY_ALERT,
    KEY_UNDO = 16, KEY_STOP = 17,    /* not calls: withdraw the last call (Law 25A), show the stop card, */
    KEY_DIRECTOR = 18,               /* call the director to the table (Law 9B1), */
    KEY_EARLIER = 19, KEY_LATER = 20,   /* scroll the auction on the display */
    KEY_COUNT
};

typedef struct {
    uint8_t level;       /* 1..7 while a bid is being keyed, 0 otherwise */
    uint8_t alert;
} bidding;

/* A key went down. Returns 1 and sets *call / *alert when it completed a call. */
uint8_t bidding_key(bidding *b, uint8_t key, uint8_t *call, uint8_t *alert);
#endif
