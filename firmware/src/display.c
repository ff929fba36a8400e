#include "display.h"

#include "../protocol/bt_proto.h"
#include "../protocol/messages.h"
#include "ssd1306.h"

enum { L_TURN = 0, L_CONTRACT, L_SEATS, L_AUCTION, L_KEYING = 6, L_MESSAGE = 7, AUCTION_ROWS = 3 };

/* the auction's last AUCTION_KEEP calls (the whole auction of any but a freak board: 12 rounds), kept so that the
 * player can scroll back to its first rounds (display_scroll) */
#define AUCTION_KEEP 48u
static struct {
    uint8_t dealer, kept, back;   /* back: the view ends this many rounds before the last one */
    uint16_t count;               /* calls in the auction (the last `kept` of them are in call[]) */
    uint8_t call[AUCTION_KEEP];   /* §9.1 codes, bit 7 alerted */
} auction;

static char lines[SSD1306_LINES][SSD1306_COLUMNS + 1];
static uint8_t dirty;
static const char SEATS[] = "NESW";
static const char STRAINS[] = "CDHSN";

/* set line `n` from `text` (NUL-terminated), marking it for redraw when it changed */
static void put_line(uint8_t n, const char *text) {
    uint8_t i = 0, changed = 0;
    for (; i < SSD1306_COLUMNS && text[i]; i++) {
        changed |= (uint8_t)(lines[n][i] != text[i]);
        lines[n][i] = text[i];
    }
    changed |= (uint8_t)(lines[n][i] != 0);
    lines[n][i] = 0;
    if (changed) dirty |= (uint8_t)(1u << n);
}

/* append the call `code` (§9.1) at out[at]; returns the new end */
static uint8_t put_call(char *out, uint8_t at, uint8_t code) {
    if (code == BT_CALL_PASS) {
        out[at++] = 'P'; out[at++] = 'A'; out[at++] = 'S'; out[at++] = 'S';
    } else if (code == BT_CALL_X || code == BT_CALL_XX) {
        out[at++] = 'X';
        if (code == BT_CALL_XX) out[at++] = 'X';
    } else {
        uint8_t bid = (uint8_t)(code - 3u);
        out[at++] = (char)('1' + bid / 5u);
        out[at++] = STRAINS[bid % 5u];
        if (bid % 5u == 4u) out[at++] = 'T';
    }
    return at;
}

static char seat_letter(uint8_t seat) { return seat <= 3u ? SEATS[seat] : '?'; }

static void show_auction(void);

void display_init(void) {
    show_auction();                               /* no call yet: the seats' line alone */
    if (ssd1306_init()) dirty = 0xFF;
}

void display_turn(const uint8_t *p) {
    char t[SSD1306_COLUMNS + 1] = "";
    if (p[0] != BT_NO_SEAT && p[1] <= 1u) {
        const char *what = p[1] == 0 ? " TO CALL" : " TO PLAY";
        t[0] = seat_letter(p[0]);
        uint8_t i = 0;
        for (; what[i]; i++) t[1 + i] = what[i];
        t[1 + i] = 0;
    }
    put_line(L_TURN, t);
}

void display_contract(const uint8_t *p) {
    char t[SSD1306_COLUMNS + 1];
    uint8_t n = 0;
    if (p[0] == 0) {
        put_line(L_CONTRACT, "PASSED OUT");
        return;
    }
    n = put_call(t, n, p[0]);
    for (uint8_t r = 0; r < p[1]; r++) t[n++] = 'X';
    const char *by = " BY ";
    for (uint8_t i = 0; by[i]; i++) t[n++] = by[i];
    t[n++] = seat_letter(p[2]);
    t[n] = 0;
    put_line(L_CONTRACT, t);
}

/* the rounds scrolled back at most: the view's first round is the first one whose calls are all kept */
static uint16_t max_back(void) {
    uint16_t slots = (uint16_t)(auction.dealer + auction.count), rows = (uint16_t)((slots + 3u) / 4u);
    uint16_t first_kept = auction.kept == auction.count ? 0u : (uint16_t)((slots - auction.kept + 3u) / 4u);
    return rows > AUCTION_ROWS + first_kept ? (uint16_t)(rows - AUCTION_ROWS - first_kept) : 0u;
}

static void show_auction(void) {
    uint16_t slots = (uint16_t)(auction.dealer + auction.count), rows = (uint16_t)((slots + 3u) / 4u);
    uint16_t first = rows > AUCTION_ROWS ? (uint16_t)(rows - AUCTION_ROWS - auction.back) : 0u;
    uint16_t first_kept_slot = (uint16_t)(slots - auction.kept);
    for (uint8_t r = 0; r < AUCTION_ROWS; r++) {
        char t[SSD1306_COLUMNS + 1];
        uint8_t n = 0;
        for (uint8_t col = 0; col < 4u; col++) {
            uint16_t slot = (uint16_t)((first + r) * 4u + col);
            while (n < col * 5u) t[n++] = ' ';
            if (slot < auction.dealer || slot < first_kept_slot || slot >= slots) continue;
            uint8_t entry = auction.call[slot - first_kept_slot];
            n = put_call(t, n, (uint8_t)(entry & 0x7Fu));
            if (entry & 0x80u) t[n++] = '*';
        }
        while (n && t[n - 1] == ' ') n--;
        t[n] = 0;
        put_line((uint8_t)(L_AUCTION + r), t);
    }
    char seats[SSD1306_COLUMNS + 1] = "N    E    S    W   -";     /* scrolled back: "-2", two rounds */
    uint8_t n = 16;
    if (auction.back) {
        n = 20;
        if (auction.back >= 10u) seats[n++] = (char)('0' + auction.back / 10u);
        seats[n++] = (char)('0' + auction.back % 10u);
    }
    seats[n] = 0;
    put_line(L_SEATS, seats);
}

void display_auction(const uint8_t *p) {
    uint16_t count = bt_get16(p + 1);
    uint8_t kept = count < AUCTION_KEEP ? (uint8_t)count : (uint8_t)AUCTION_KEEP;
    auction.dealer = p[0];
    auction.count = count;
    auction.kept = kept;
    auction.back = 0;                             /* a new call: back to the latest rounds */
    for (uint8_t i = 0; i < kept; i++) auction.call[i] = p[3 + count - kept + i];
    show_auction();
}

void display_scroll(uint8_t earlier) {
    uint16_t most = max_back();
    if (earlier && auction.back < most) auction.back++;
    else if (!earlier && auction.back) auction.back--;
    else return;
    show_auction();
}

void display_message(const uint8_t *text_field) {
    char t[SSD1306_COLUMNS + 1];
    uint8_t len = text_field[0], n = 0;
    for (; n < len && n < SSD1306_COLUMNS; n++) {
        uint8_t c = text_field[1 + n];
        t[n] = c >= 0x20u && c < 0x7Fu ? (char)c : '?';     /* beyond ASCII: not in the font */
    }
    t[n] = 0;
    put_line(L_MESSAGE, t);
}

void display_keying(uint8_t level, uint8_t alert, uint8_t call) {
    char t[SSD1306_COLUMNS + 1] = "CALL ";
    uint8_t n = 5;
    if (call != 0xFFu) n = put_call(t, n, call);
    else if (level) t[n++] = (char)('0' + level);
    else if (!alert) n = 0;                                 /* nothing keyed: the line is blank */
    if (alert && n) t[n++] = '*';
    t[n] = 0;
    put_line(L_KEYING, t);
}

void display_poll(void) {
    if (!dirty) return;
    uint8_t n = 0;
    while (!(dirty & (1u << n))) n++;
    dirty &= (uint8_t)~(1u << n);
    ssd1306_line(n, lines[n]);
}
