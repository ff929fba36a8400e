#include "bidding.h"

#include "../protocol/messages.h"

static uint8_t done(bidding *b, uint8_t code, uint8_t *call, uint8_t *alert) {
    *call = code;
    *alert = b->alert;
    b->alert = 0;
    b->level = 0;
    return 1;
}

uint8_t bidding_key(bidding *b, uint8_t key, uint8_t *call, uint8_t *alert) {
    if (key <= KEY_L7) {
        b->level = (uint8_t)(key + 1u);           /* a second level key replaces the first */
        return 0;
    }
    if (key >= KEY_C && key <= KEY_NT) {
        if (!b->level) return 0;                  /* a strain without a level is ignored */
        return done(b, BT_BID(b->level, (uint8_t)(key - KEY_C)), call, alert);
    }
    switch (key) {
    case KEY_PASS: return done(b, BT_CALL_PASS, call, alert);
    case KEY_X: return done(b, BT_CALL_X, call, alert);
    case KEY_XX: return done(b, BT_CALL_XX, call, alert);
    case KEY_ALERT: b->alert = (uint8_t)!b->alert; return 0;
    default: return 0;
    }
}
