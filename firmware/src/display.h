/* The bidding box's screen (an SSD1306, ssd1306.h): what the host shows (SHOW_TURN, SHOW_CONTRACT,
 * SHOW_AUCTION, SHOW_ERROR, REFUSE_CALL's text) and the call being keyed. Layout, 8 lines of 21 characters:
 *   0 whose turn ("E TO CALL")   1 the contract ("3NTX BY N", "PASSED OUT")   2 "N    E    S    W"
 *   3-5 the auction's last three rounds, one call under each seat (an alerted call ends in '*'); the keys
 *       Earlier and Later scroll them back to the first rounds and forward again (line 2 ends in "-k": the view
 *       ends k rounds before the last one); a new SHOW_AUCTION shows the last rounds again
 *   6 the call being keyed ("CALL 3", "CALL 3NT*" once sent)   7 the host's message
 * Messages are decoded from payloads bt_msg_check accepted. */
#ifndef DISPLAY_H
#define DISPLAY_H
#include <stdint.h>

void display_init(void);
void display_turn(const uint8_t *p);
void display_contract(const uint8_t *p);
void display_auction(const uint8_t *p);
void display_message(const uint8_t *text_field);
void display_scroll(uint8_t earlier);                 /* one round earlier (1) or later (0), within the auction */      /* a text field: length u8, then the bytes */
/* the call being keyed: `level` 1..7 keyed so far (0 none), or `call` (a call code, 0xFF none) just sent */
void display_keying(uint8_t level, uint8_t alert, uint8_t call);
/* redraw at most one changed line (a line is ~130 bytes on the bus: ~3 ms at 400 kHz) */
void display_poll(void);
#endif
