/* Emulation harness for the seat unit: runs the firmware ELF on simavr's ATmega2560, paced to the wall clock;
 * bridges each of its two UARTs (0: seat reader, 1: bidding box) to a pseudo-terminal published under a stable
 * symlink (as a udev by-id link), models the MFRC522 on SPI and the bidding-box keys on their pins, and takes
 * a script of physical actions on stdin, one command per line:
 *   place UID_HEX [ID]      a tag is laid on the antenna (replacing any); prints "placed ID MONOTONIC_NS"
 *   placeafter MS UID_HEX [ID]   the same, MS emulated milliseconds after the previous tag action
 *   add UID_HEX [ID]        one more tag laid on the antenna beside those there (several tags in the field)
 *   remove [MS]             the antenna's field is empty (MS ms after the previous tag action)
 *   dummy place|placeafter|add|remove ...   the same on the dummy zone's antenna (the second MFRC522, its NSS
 *                           on PL0); without the prefix, the play zone's (NSS on PB0)
 *   (tag actions happen in the order asked, each no earlier than the one before)
 *   press CALL [alert]      keys pressed in turn (Alert first if asked, then Pass/X/XX, or level + strain)
 *   unplug reader|box|all MS   the link's cable is pulled for MS milliseconds (the MCU keeps running)
 *   faults corrupt=R drop=R bytedrop=R bytedup=R dir=up|down|both seed=N   wire faults on both links
 *   sync ID [MS]            prints "synced ID" once every key press and tag action asked before it is done
 *                           (and MS emulated milliseconds more: time for the firmware to read the last tag)
 *   key NAME                one key pressed: 1..7, Pass, C, D, H, S, NT, X, XX, Alert, Undo, Stop, Director,
 *                           Earlier, Later
 *   pulses                  prints "pulses led=AT:LEN,... buzzer=AT:LEN,...": the acknowledgement LED's (PH3) and
 *                           the buzzer's (PH4) high pulses ended since the last "pulses", in emulated us (AT: the
 *                           rising edge)
 *   display                 prints "display L0|L1|...|L7": the SSD1306's 8 text lines read back from its pixels
 *                           (each 6-column cell matched against the firmware's font; '~' for no glyph)
 *   reset                   the MCU's RESET pin is pulled (MCUSR EXTRF; RAM and EEPROM kept, the flash as it is)
 *   chipreset               the MFRC522 alone resets (its registers back to their reset values, no field)
 *   wdreset                 the MCU resets as its watchdog resets it (MCUSR WDRF set, the RAM kept, the
 *                           peripherals and the CPU back to their reset state); the tags stay where they lie
 *   loopreset               restarts the main-loop measurement (loop_max_us, loop_busy_permille in stats)
 *   stats                   prints counters;   quit
 * Prints "ready READER_PATH BOX_PATH" once both ptys exist. Usage:
 *   seatunit-sim --elf FW.elf --link-dir DIR --name NAME --reader-serial SR --box-serial BB [--boot BOOT.bin]
 * With --boot the boot loader's bytes go to the boot section (byte 0x3F000) and reset starts there, as the
 * BOOTRST fuse makes it on the chip; the EEPROM then holds the application record of FW.elf as if the boot
 * loader had installed it (boot/boot_proto.h). simavr 1.6 runs SPM on the ATmega2560 itself (avr_flash.c:
 * page erase, temporary page buffer, page write; instantaneous, where the chip takes 3.7-4.5 ms: data sheet,
 * "SPM Programming Time"); the lock bits are not enforced. */
#define _GNU_SOURCE 1   /* ppoll */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_eeprom.h>
#include <avr_ioport.h>
#include <avr_spi.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>
#include <parts/ssd1306_virt.h>

#include "../boot/boot_proto.h"
#include "../src/font5x7.h"

#include "mfrc522_model.h"

#define FREQ 16000000ull
#define CYCLES_PER_US (FREQ / 1000000ull)
#define KEY_HOLD_MS 20u
#define KEY_GAP_MS 20u
#define OUT_MAX 65536u

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ faults */
static struct {
    double corrupt, drop, bytedrop, bytedup;
    int up_only, down_only;                       /* faults on device -> host (host -> device) bytes only */
    uint64_t rng;
} faults = {0, 0, 0, 0, 0, 0, 0x9E3779B97F4A7C15ull};

static double rnd(void) {                         /* xorshift64*: reproducible for a seed */
    faults.rng ^= faults.rng >> 12;
    faults.rng ^= faults.rng << 25;
    faults.rng ^= faults.rng >> 27;
    return (double)((faults.rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* ------------------------------------------------------------------ links (UART <-> pty) */
typedef struct {
    const char *name;
    char port;                                    /* simavr UART name: '0' or '1' */
    char path[512];
    int master, slave;
    uint64_t replug_at_ns;                        /* unplugged until then (0: plugged) */
    uint8_t in[1 << 16];                          /* host -> device, waiting for the UART's fifo */
    uint32_t in_head, in_tail;
    uint8_t out[OUT_MAX];                         /* device -> host, waiting for the pty */
    uint32_t out_len;
    int xoff, frame_up, frame_down;            /* through_faults() state per direction */
    avr_irq_t *irq;
    unsigned long bytes_up, bytes_down, faulted, unplugs;
} link_t;

static avr_t *avr;
static link_t links[2];
static mfrc522_model readers[2];                  /* the play zone's MFRC522 (NSS on PB0), the dummy zone's (PL0) */
static unsigned long spi_contention;              /* bytes clocked with both chips selected (MISO driven twice) */
static unsigned long wd_resets;
static ssd1306_t oled;                            /* simavr's SSD1306 part on the TWI bus */

static void publish(link_t *l) {
    struct termios t;
    if (openpty(&l->master, &l->slave, NULL, NULL, NULL) < 0) {
        perror("openpty");
        exit(2);
    }
    for (int fd = 0; fd < 2; fd++) {
        int f = fd ? l->slave : l->master;
        tcgetattr(f, &t);
        cfmakeraw(&t);
        tcsetattr(f, TCSANOW, &t);
    }
    fcntl(l->master, F_SETFL, fcntl(l->master, F_GETFL) | O_NONBLOCK);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", l->path);
    unlink(tmp);
    if (symlink(ttyname(l->slave), tmp) < 0 || rename(tmp, l->path) < 0) {
        perror("symlink");
        exit(2);
    }
    l->replug_at_ns = 0;
}

static void unpublish(link_t *l) {
    if (l->master >= 0) close(l->master);
    if (l->slave >= 0) close(l->slave);
    l->master = l->slave = -1;
    unlink(l->path);
    l->out_len = 0;
    l->in_head = l->in_tail = 0;
}

/* one byte through the wire faults: appends 0, 1 or 2 bytes to out. *state: 0 inside a frame, 1 at the start
 * of one (after a delimiter), 2 dropping a frame up to its delimiter. */
static int through_faults(uint8_t b, int *state, uint8_t *out) {
    if (*state == 2) {                            /* a dropped frame: lost up to its delimiter */
        if (b == 0) *state = 1;
        return 0;
    }
    if (b == 0) *state = 1;
    else if (*state == 1) {                       /* a frame's first byte: the frame is lost, or not */
        *state = 0;
        if (faults.drop > 0 && rnd() < faults.drop) {
            *state = 2;
            return 0;
        }
    }
    if (faults.bytedrop > 0 && rnd() < faults.bytedrop) return 0;
    if (faults.corrupt > 0 && rnd() < faults.corrupt) b = (uint8_t)(b ^ (1u + (unsigned)(rnd() * 255.0)));
    out[0] = b;
    if (faults.bytedup > 0 && rnd() < faults.bytedup) {
        out[1] = b;
        return 2;
    }
    return 1;
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    link_t *l = param;
    uint8_t b[2];
    if (l->master < 0) return;                    /* unplugged: the bytes go nowhere */
    int n = 1;
    if (faults.down_only) b[0] = (uint8_t)value;
    else n = through_faults((uint8_t)value, &l->frame_up, b);
    l->faulted += (unsigned)(n != 1);
    for (int i = 0; i < n; i++)
        if (l->out_len < OUT_MAX) l->out[l->out_len++] = b[i];
    l->bytes_up++;
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)value;
    ((link_t *)param)->xoff = 0;
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)value;
    ((link_t *)param)->xoff = 1;
}

static void feed_uart(link_t *l) {
    while (!l->xoff && l->in_tail != l->in_head) {
        uint8_t b = l->in[l->in_tail];
        l->in_tail = (l->in_tail + 1u) & 0xFFFFu;
        avr_raise_irq(l->irq + UART_IRQ_INPUT, b);
    }
}

static void service_link(link_t *l, short revents) {
    if (l->master < 0) return;
    if (revents & POLLIN) {
        uint8_t buf[4096];
        ssize_t n = read(l->master, buf, sizeof buf);
        for (ssize_t i = 0; i < n; i++) {
            uint8_t b[2];
            int k = 1;
            b[0] = buf[i];
            if (!faults.up_only) k = through_faults(buf[i], &l->frame_down, b);
            l->faulted += (unsigned)(k != 1);
            for (int j = 0; j < k; j++) {
                uint32_t next = (l->in_head + 1u) & 0xFFFFu;
                if (next != l->in_tail) {
                    l->in[l->in_head] = b[j];
                    l->in_head = next;
                }
            }
            l->bytes_down++;
        }
    }
    if (l->out_len) {
        ssize_t n = write(l->master, l->out, l->out_len);
        if (n > 0) {
            memmove(l->out, l->out + n, l->out_len - (uint32_t)n);
            l->out_len -= (uint32_t)n;
        } else if (n < 0 && errno != EAGAIN) {
            l->out_len = 0;
        }
    }
    feed_uart(l);
}

/* ------------------------------------------------------------------ SPI: the MFRC522 */
static avr_irq_t *spi_in;

static unsigned long spi_bytes;

static void model_time(void) {
    for (int i = 0; i < 2; i++) readers[i].now_ns = avr->cycle * 1000000000ull / FREQ;
}

/* simavr 1.6 completes an SPI byte 100 us after SPDR is written, whatever the SCK rate (50 times the 2 us of
 * the board's 4 MHz SCK). The harness times the byte as the ATmega2560 does (datasheet, SPI: SCK = f/4, f/16,
 * f/64 or f/128 by SPR1:SPR0, doubled by SPI2X; 8 SCK periods a byte): SPIF and the byte out together after
 * those cycles, as simavr's own handler does after its 100 us. The model answers within the byte. */
static avr_cycle_count_t spi_byte_done(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)when;
    avr_spi_t *p = param;
    if (avr_regbit_get(a, p->spe) && avr_regbit_get(a, p->mstr)) {
        avr_raise_interrupt(a, &p->spi);
        avr_raise_irq(p->io.irq + SPI_IRQ_OUTPUT, a->data[p->r_spdr]);
    }
    return 0;
}

static void spdr_write(avr_t *a, avr_io_addr_t addr, uint8_t v, void *param) {
    avr_spi_t *p = param;
    static const uint8_t divider[4] = {4, 16, 64, 128};
    uint32_t sck = divider[avr_regbit_get(a, p->spr[1]) << 1 | avr_regbit_get(a, p->spr[0])];
    if (avr_regbit_get(a, p->spr[2])) sck /= 2;       /* SPI2X */
    avr_regbit_clear(a, p->spi.raised);               /* writing SPDR starts a byte: SPIF clear until it ends */
    avr_core_watch_write(a, addr, v);
    avr_cycle_timer_cancel(a, spi_byte_done, p);
    avr_cycle_timer_register(a, 8 * sck, spi_byte_done, p);
}

#define SPDR_ADDR 0x4E          /* ATmega2560 SPDR: I/O 0x2E, data space 0x4E */

static void time_spi_as_the_chip(void) {
    avr_spi_t *p = avr->io[AVR_DATA_TO_IO(SPDR_ADDR)].w.param;
    if (!p || p->r_spdr != SPDR_ADDR) {
        fprintf(stderr, "simavr's SPI is not where the ATmega2560 has it\n");
        exit(2);
    }
    avr->io[AVR_DATA_TO_IO(SPDR_ADDR)].w.c = spdr_write;
}

static void spi_out(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    model_time();
    spi_bytes++;
    /* each chip drives MISO only while selected (high impedance otherwise, the line pulled up): both
     * selected at once is a wiring or firmware fault, counted; the line then reads as the chips' AND */
    spi_contention += readers[0].selected && readers[1].selected;
    uint8_t miso = 0xFF;
    for (int i = 0; i < 2; i++) miso &= mfrc522_model_spi(&readers[i], (uint8_t)value);
    avr_raise_irq(spi_in, miso);
}

static void nss(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    model_time();
    mfrc522_model_chip_select(&readers[(intptr_t)param], (uint8_t)value);
}

/* ------------------------------------------------------------------ the main loop's gaps
 * The firmware sleeps (SLEEP, idle mode) at the end of every main-loop turn with nothing left to do; the
 * longest stretch the CPU runs between two sleeps bounds the time the main loop leaves the UART rings and
 * the keys unserved. Measured from the last "loopreset" (the boot's set-up is not a main-loop turn). */
static struct {
    int asleep;
    uint64_t awake_since, longest, busy, since;
} loop = {0, 0, 0, 0, 0};

static void loop_reset(void) {
    loop.longest = loop.busy = 0;
    loop.since = loop.awake_since = avr->cycle;
}

/* the stack's deepest point since the start (SPH:SPL at 0x5E:0x5D), checked after every instruction */
static uint16_t sp_min = 0xFFFF;

static void loop_wake_check(void) {
    uint16_t sp = (uint16_t)(avr->data[0x5D] | (avr->data[0x5E] << 8));
    if (sp < sp_min && sp > 0x200) sp_min = sp;
    if (loop.asleep && avr->state != cpu_Sleeping) {
        loop.asleep = 0;
        loop.awake_since = avr->cycle;
    }
}

/* ------------------------------------------------------------------ keys and the action queue */
enum { KEY_L1 = 0, KEY_PASS = 7, KEY_C = 8, KEY_NT = 12, KEY_X = 13, KEY_XX = 14, KEY_ALERT = 15, KEY_COUNT = 21 };

typedef struct {
    uint64_t at;                                  /* emulated cycle */
    int kind;                                     /* 0 key down, 1 key up, 2 sync, 3 tag placed, 4 field empty,
                                                     5 a tag added */
    int arg;                                      /* the key; for a tag action the zone's reader (0 play, 1 dummy) */
    char id[64];
    uint8_t uid[10], uid_len;
} action;

static action queue[4096];
static int queued;
static uint64_t keys_free_at;                     /* emulated cycle when the last asked key press ends */
static uint64_t tag_free_at;                      /* emulated cycle of the last asked tag action (one hand at
                                                     the antenna: tag actions happen in the order asked) */

static uint64_t tag_slot(const char *delay_ms) {
    uint64_t base = tag_free_at > avr->cycle ? tag_free_at : avr->cycle;
    tag_free_at = base + (delay_ms ? strtoull(delay_ms, NULL, 10) : 0ull) * 1000ull * CYCLES_PER_US;
    return tag_free_at;
}
static avr_irq_t *key_irq[KEY_COUNT];
static uint8_t key_level[KEY_COUNT];              /* each key's pin as the key holds it (1: released) */

static action *push(uint64_t at, int kind, int arg, const char *id) {
    if (queued >= (int)(sizeof queue / sizeof queue[0])) return NULL;
    int i = queued++;
    while (i > 0 && queue[i - 1].at > at) {      /* keep it sorted by time (stable) */
        queue[i] = queue[i - 1];
        i--;
    }
    queue[i] = (action){at, kind, arg, "", {0}, 0};
    snprintf(queue[i].id, sizeof queue[i].id, "%s", id ? id : "-");
    return &queue[i];
}

/* Called before every instruction: the answers it prints are flushed only when an action ran (an empty fflush
 * per instruction was a fifth of the harness's CPU). */
static void run_due_actions(void) {
    if (!queued || queue[0].at > avr->cycle) return;
    while (queued && queue[0].at <= avr->cycle) {
        action a = queue[0];
        memmove(queue, queue + 1, (size_t)(--queued) * sizeof queue[0]);
        if (a.kind == 2) printf("synced %s\n", a.id);
        else if (a.kind == 3) {
            mfrc522_model_place(&readers[a.arg], a.uid, a.uid_len);
            printf("placed %s %llu\n", a.id, (unsigned long long)mono_ns());
        } else if (a.kind == 5) {
            if (mfrc522_model_add(&readers[a.arg], a.uid, a.uid_len)) printf("error the field holds too many tags\n");
            else printf("placed %s %llu\n", a.id, (unsigned long long)mono_ns());
        } else if (a.kind == 4) mfrc522_model_place(&readers[a.arg], NULL, 0);
        else {
            key_level[a.arg] = a.kind == 0 ? 0 : 1;          /* a pressed key pulls its pin low */
            avr_raise_irq(key_irq[a.arg], key_level[a.arg]);
        }
    }
    fflush(stdout);
}

static int keys_for(const char *call, int *keys) {
    if (!strcmp(call, "Pass")) return keys[0] = KEY_PASS, 1;
    if (!strcmp(call, "X")) return keys[0] = KEY_X, 1;
    if (!strcmp(call, "XX")) return keys[0] = KEY_XX, 1;
    if (call[0] < '1' || call[0] > '7') return 0;
    static const char *strains[] = {"C", "D", "H", "S", "NT"};
    for (int s = 0; s < 5; s++)
        if (!strcmp(call + 1, strains[s])) {
            keys[0] = KEY_L1 + (call[0] - '1');
            keys[1] = KEY_C + s;
            return 2;
        }
    return 0;
}

static void press_keys(const int *keys, int n) {
    uint64_t t = keys_free_at > avr->cycle ? keys_free_at : avr->cycle;
    for (int i = 0; i < n; i++) {
        push(t, 0, keys[i], NULL);
        push(t + KEY_HOLD_MS * 1000ull * CYCLES_PER_US, 1, keys[i], NULL);
        t += (KEY_HOLD_MS + KEY_GAP_MS) * 1000ull * CYCLES_PER_US;
    }
    keys_free_at = t;
}

static int key_named(const char *name) {
    static const char *names[KEY_COUNT] = {"1", "2", "3", "4", "5", "6", "7", "Pass", "C", "D", "H", "S", "NT",
                                           "X", "XX", "Alert", "Undo", "Stop", "Director",
                                           "Earlier", "Later"};
    for (int k = 0; k < KEY_COUNT; k++)
        if (!strcmp(name, names[k])) return k;
    return -1;
}

/* one 6-column cell of the display's RAM as the character whose glyph it holds ('~' if none) */
static char cell_char(int page, int cell) {
    const uint8_t *col = oled.vram[page] + cell * FONT_CELL;
    if (col[FONT_WIDTH]) return '~';
    for (uint8_t g = 0; g <= FONT_LAST - FONT_FIRST; g++) {
        uint8_t c = 0;
        while (c < FONT_WIDTH && font_column(g, c) == col[c]) c++;
        if (c == FONT_WIDTH) return (char)(FONT_FIRST + g);
    }
    return '~';
}

static void print_display(void) {
    printf("display");
    for (int page = 0; page < SSD1306_VIRT_PAGES; page++) {
        char text[SSD1306_VIRT_COLUMNS / FONT_CELL + 1];
        int n = 0;
        for (int cell = 0; cell < SSD1306_VIRT_COLUMNS / (int)FONT_CELL; cell++) text[n++] = cell_char(page, cell);
        while (n && text[n - 1] == ' ') n--;
        text[n] = 0;
        printf("%c%s", page ? '|' : ' ', text);
    }
    printf("\n");
}

static void press(const char *call, int alert) {
    int keys[3], n = 0;
    if (alert) keys[n++] = KEY_ALERT;
    int k = keys_for(call, keys + n);
    if (!k) {
        printf("error unknown call %s\n", call);
        return;
    }
    press_keys(keys, n + k);
}

/* ------------------------------------------------------------------ the feedback pins (PH3 LED, PH4 buzzer) */
#define PULSES_MAX 64
typedef struct {
    const char *name;
    int level;
    uint64_t rose_us;
    uint64_t at[PULSES_MAX], len[PULSES_MAX];     /* the pulses ended since the last "pulses" */
    int n;
} output_t;
static output_t outputs[2] = {{"led", 0, 0, {0}, {0}, 0}, {"buzzer", 0, 0, {0}, {0}, 0}};

static void output_pin(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    output_t *o = &outputs[(intptr_t)param];
    uint64_t us = avr->cycle / CYCLES_PER_US;
    if ((int)(value & 1u) == o->level) return;
    o->level = (int)(value & 1u);
    if (o->level) o->rose_us = us;
    else if (o->n < PULSES_MAX) {
        o->at[o->n] = o->rose_us;
        o->len[o->n++] = us - o->rose_us;
    }
}

static void print_pulses(void) {
    printf("pulses");
    for (int i = 0; i < 2; i++) {
        printf(" %s=", outputs[i].name);
        for (int k = 0; k < outputs[i].n; k++)
            printf("%s%llu:%llu", k ? "," : "", (unsigned long long)outputs[i].at[k],
                   (unsigned long long)outputs[i].len[k]);
        outputs[i].n = 0;
    }
    printf("\n");
}

/* ------------------------------------------------------------------ commands */
static int command(char *line) {
    char *argv[8];
    int argc = 0;
    for (char *t = strtok(line, " \t\r\n"); t && argc < 8; t = strtok(NULL, " \t\r\n")) argv[argc++] = t;
    if (!argc) return 1;
    if (!strcmp(argv[0], "quit")) return 0;
    int zone = 0;                                 /* the play zone's reader, or the dummy zone's */
    if (!strcmp(argv[0], "dummy") && argc > 1) {
        zone = 1;
        for (int i = 1; i < argc; i++) argv[i - 1] = argv[i];
        argc--;
    }
    if ((!strcmp(argv[0], "place") && argc >= 2) || (!strcmp(argv[0], "placeafter") && argc >= 3)) {
        int delayed = argv[0][5] == 'a';
        const char *hex = argv[1 + delayed];
        size_t n = strlen(hex) / 2;
        uint64_t at = tag_slot(delayed ? argv[1] : NULL);
        action *a = n == 4 || n == 7 ? push(at, 3, zone, argc > 2 + delayed ? argv[2 + delayed] : NULL) : NULL;
        if (!a) {
            printf("error an ISO 14443 A tag has a 4- or 7-byte UID, not %s\n", hex);
        } else {
            for (size_t i = 0; i < n; i++) {
                unsigned v = 0;
                sscanf(hex + 2 * i, "%2x", &v);
                a->uid[i] = (uint8_t)v;
            }
            a->uid_len = (uint8_t)n;
        }
    } else if (!strcmp(argv[0], "add") && argc >= 2) {
        size_t n = strlen(argv[1]) / 2;
        action *a = n == 4 || n == 7 ? push(tag_slot(NULL), 5, zone, argc > 2 ? argv[2] : NULL) : NULL;
        if (!a) {
            printf("error an ISO 14443 A tag has a 4- or 7-byte UID, not %s\n", argv[1]);
        } else {
            for (size_t i = 0; i < n; i++) {
                unsigned v = 0;
                sscanf(argv[1] + 2 * i, "%2x", &v);
                a->uid[i] = (uint8_t)v;
            }
            a->uid_len = (uint8_t)n;
        }
    } else if (!strcmp(argv[0], "reset")) {
        avr_reset(avr);                           /* to reset_pc: the boot loader when there is one */
        avr->data[0x54] = 0x02;                   /* MCUSR: EXTRF */
    } else if (!strcmp(argv[0], "chipreset")) {
        mfrc522_model_reset(&readers[zone]);      /* the MFRC522 alone restarts (a glitch on its supply) */
    } else if (!strcmp(argv[0], "wdreset")) {
        /* what the watchdog does when it bites (ATmega2560 §12.4.5): a reset with WDRF set in MCUSR; simavr's
         * avr_reset keeps the SRAM and the EEPROM as the chip does. The readers lose nothing: they have their
         * own supply and keep their set-up, as a real unit's would. */
        avr_reset(avr);
        avr->data[0x54] |= 0x08;                  /* MCUSR (0x34 + 0x20): WDRF */
        /* the keys' levels stay what they were: simavr's port reset forgot them, and its pin IRQs pass a value
         * on only when it changes (the other level is raised first, in no emulated time) */
        for (int k = 0; k < KEY_COUNT; k++) {
            avr_raise_irq(key_irq[k], !key_level[k]);
            avr_raise_irq(key_irq[k], key_level[k]);
        }
        wd_resets++;
    } else if (!strcmp(argv[0], "loopreset")) {
        loop_reset();
    } else if (!strcmp(argv[0], "remove")) {
        push(tag_slot(argc > 1 ? argv[1] : NULL), 4, zone, NULL);
    } else if (!strcmp(argv[0], "press") && argc >= 2) {
        press(argv[1], argc > 2 && !strcmp(argv[2], "alert"));
    } else if (!strcmp(argv[0], "key") && argc >= 2) {
        int key = key_named(argv[1]);
        if (key < 0) printf("error unknown key %s\n", argv[1]);
        else press_keys(&key, 1);
    } else if (!strcmp(argv[0], "display")) {
        print_display();
    } else if (!strcmp(argv[0], "pulses")) {
        print_pulses();
    } else if (!strcmp(argv[0], "sync") && argc >= 2) {
        uint64_t at = keys_free_at > tag_free_at ? keys_free_at : tag_free_at;
        at = at > avr->cycle ? at : avr->cycle;
        push(at + (argc > 2 ? strtoull(argv[2], NULL, 10) : 0ull) * 1000ull * CYCLES_PER_US, 2, 0, argv[1]);
    } else if (!strcmp(argv[0], "unplug") && argc >= 3) {
        uint64_t until = mono_ns() + strtoull(argv[2], NULL, 10) * 1000000ull;
        for (int i = 0; i < 2; i++) {
            if (strcmp(argv[1], "all") && strcmp(argv[1], links[i].name)) continue;
            if (links[i].master >= 0) unpublish(&links[i]);
            links[i].replug_at_ns = until;
            links[i].unplugs++;
        }
    } else if (!strcmp(argv[0], "faults")) {
        for (int i = 1; i < argc; i++) {
            char *eq = strchr(argv[i], '=');
            if (!eq) continue;
            *eq = 0;
            double v = atof(eq + 1);
            if (!strcmp(argv[i], "corrupt")) faults.corrupt = v;
            else if (!strcmp(argv[i], "drop")) faults.drop = v;
            else if (!strcmp(argv[i], "bytedrop")) faults.bytedrop = v;
            else if (!strcmp(argv[i], "bytedup")) faults.bytedup = v;
            else if (!strcmp(argv[i], "dir")) {
                faults.up_only = !strcmp(eq + 1, "up");
                faults.down_only = !strcmp(eq + 1, "down");
            }
            else if (!strcmp(argv[i], "seed"))
                faults.rng = 0x9E3779B97F4A7C15ull ^ (strtoull(eq + 1, NULL, 10) * 0x100000001B3ull);
            if (!faults.rng) faults.rng = 1;
        }
    } else if (!strcmp(argv[0], "stats")) {
        uint64_t span = avr->cycle - loop.since;
        printf("stats emulated_ms=%llu transceives=%u tag_answers=%u pins=%02x%02x collisions=%u timer_irqs=%u "
               "tag_fallbacks=%u loop_max_us=%llu loop_busy_permille=%llu spi_bytes=%lu stack_max=%u",
               (unsigned long long)(avr->cycle / (FREQ / 1000)), readers[0].transceives, readers[0].answers,
               avr->data[0x26], avr->data[0x20],      /* PINC, PINA: the keys, active low */
               readers[0].collisions + readers[1].collisions, readers[0].timer_irqs + readers[1].timer_irqs,
               readers[0].tag_fallbacks + readers[1].tag_fallbacks,
               (unsigned long long)(loop.longest / CYCLES_PER_US),
               (unsigned long long)(span ? loop.busy * 1000u / span : 0u), spi_bytes,
               sp_min == 0xFFFF ? 0u : 0x21FFu - sp_min);   /* RAMEND 0x21FF: bytes of stack used at most */
        printf(" dummy_transceives=%u spi_contention=%lu wd_resets=%lu", readers[1].transceives, spi_contention,
               wd_resets);
        for (int i = 0; i < 2; i++)
            printf(" %s_up=%lu %s_down=%lu %s_faulted=%lu %s_unplugs=%lu", links[i].name, links[i].bytes_up,
                   links[i].name, links[i].bytes_down, links[i].name, links[i].faulted, links[i].name,
                   links[i].unplugs);
        printf("\n");
    } else {
        printf("error unknown command %s\n", argv[0]);
    }
    fflush(stdout);
    return 1;
}

/* simavr's messages go to stderr (stdout carries the harness's answers); only errors */
static void log_stderr(avr_t *a, const int level, const char *format, va_list ap) {
    (void)a;
    if (level <= LOG_ERROR) vfprintf(stderr, format, ap);
}

static void no_sleep(avr_t *a, avr_cycle_count_t how_long) {
    (void)how_long;                               /* the main loop paces emulated time to the wall clock */
    if (!loop.asleep) {
        uint64_t ran = a->cycle - loop.awake_since;
        if (loop.awake_since >= loop.since && ran > loop.longest) loop.longest = ran;
        loop.busy += ran;
        loop.asleep = 1;
    }
}

static void load_identity(const char *reader_serial, const char *box_serial) {
    uint8_t ee[58];
    memset(ee, 0, sizeof ee);
    ee[0] = 'B';
    ee[1] = 'T';
    ee[2] = 1;
    ee[3] = 0xFF;                                 /* no seat bound yet; table 0 and 0 boots */
    memcpy(ee + 10, reader_serial, strnlen(reader_serial, 24));   /* NUL-padded, not terminated when 24 long */
    memcpy(ee + 34, box_serial, strnlen(box_serial, 24));
    avr_eeprom_desc_t d = {ee, 0, sizeof ee};
    avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
}

/* the boot loader in its section, and the record of the application found in flash (boot/boot.c checks it) */
static void load_boot(const char *path, const elf_firmware_t *fw) {
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(avr->flash + BT_BOOT_START_BYTE, 1, avr->flashend + 1 - BT_BOOT_START_BYTE, f) : 0;
    if (f) fclose(f);
    if (!n) {
        fprintf(stderr, "cannot read the boot loader %s\n", path);
        exit(2);
    }
    avr->reset_pc = avr->pc = BT_BOOT_START_BYTE;
    uint32_t len = fw->flashsize, crc = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < len; i++) {
        crc ^= avr->flash[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    crc = ~crc;
    uint8_t rec[11 + BT_APP_VERSION_MAX];
    memset(rec, 0, sizeof rec);
    rec[0] = (uint8_t)BT_APP_MAGIC;
    rec[1] = (uint8_t)(BT_APP_MAGIC >> 8);
    for (int i = 0; i < 4; i++) {
        rec[2 + i] = (uint8_t)(len >> (8 * i));
        rec[6 + i] = (uint8_t)(crc >> (8 * i));
    }
    const uint8_t *v = memmem(avr->flash, len, "seatunit-", 9);   /* the version string HELLO gives */
    uint8_t vn = 0;
    while (v && vn < BT_APP_VERSION_MAX && v + vn < avr->flash + len && v[vn] >= 0x21 && v[vn] <= 0x7E) vn++;
    rec[10] = vn;
    if (vn) memcpy(rec + 11, v, vn);
    avr_eeprom_desc_t d = {rec, BT_EE_APP_RECORD, (uint32_t)(11u + vn)};
    avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
}

static const char *arg(int argc, char **argv, const char *name, const char *fallback) {
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) return argv[i + 1];
    return fallback;
}

int main(int argc, char **argv) {
    const char *elf = arg(argc, argv, "--elf", NULL), *dir = arg(argc, argv, "--link-dir", NULL);
    const char *name = arg(argc, argv, "--name", "seatunit");
    if (!elf || !dir) {
        fprintf(stderr, "usage: %s --elf FW.elf --link-dir DIR [--name NAME] [--reader-serial SR] "
                        "[--box-serial BB]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    avr_global_logger_set(log_stderr);
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "cannot read firmware %s\n", elf);
        return 2;
    }
    avr = avr_make_mcu_by_name("atmega2560");
    if (!avr || avr_init(avr) != 0) {
        fprintf(stderr, "simavr has no atmega2560\n");
        return 2;
    }
    avr_load_firmware(avr, &fw);
    avr->frequency = (uint32_t)FREQ;
    avr->sleep = no_sleep;
    avr->log = 1;
    load_identity(arg(argc, argv, "--reader-serial", "SR-UNSET"), arg(argc, argv, "--box-serial", "BB-UNSET"));
    const char *boot = arg(argc, argv, "--boot", NULL);
    if (boot) load_boot(boot, &fw);

    mfrc522_model_reset(&readers[0]);
    mfrc522_model_reset(&readers[1]);
    time_spi_as_the_chip();
    spi_in = avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_OUTPUT), spi_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), IOPORT_IRQ_PIN0), nss, (void *)0);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('L'), IOPORT_IRQ_PIN0), nss, (void *)1);
    ssd1306_init(avr, &oled, SSD1306_VIRT_COLUMNS, SSD1306_VIRT_PAGES * 8);
    ssd1306_wiring_t oled_wiring = {{'B', 6}, {'B', 7}, {'B', 5}};    /* RES on PB5; CS and D/C unused on I2C */
    ssd1306_connect_twi(&oled, &oled_wiring);
    for (int i = 0; i < 2; i++)                       /* the LED on PH3, the buzzer on PH4 */
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('H'), IOPORT_IRQ_PIN3 + i), output_pin,
                                (void *)(intptr_t)i);
    for (int k = 0; k < KEY_COUNT; k++) {             /* keys 0-7 on port A, 8-15 on C, the others on F */
        char port = k < 8 ? 'A' : k < 16 ? 'C' : 'F';
        key_irq[k] = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), IOPORT_IRQ_PIN0 + (k & 7));
        key_level[k] = 1;
        avr_raise_irq(key_irq[k], 1);             /* released */
    }
    const char *names[2] = {"reader", "box"};
    for (int i = 0; i < 2; i++) {
        link_t *l = &links[i];
        l->name = names[i];
        l->port = (char)('0' + i);
        l->master = l->slave = -1;
        snprintf(l->path, sizeof l->path, "%s/%s-%s", dir, name, names[i]);
        uint32_t flags = 0;
        avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS(l->port), &flags);
        flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
        avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS(l->port), &flags);
        l->irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ(l->port), 0);
        avr_irq_register_notify(l->irq + UART_IRQ_OUTPUT, uart_out, l);
        avr_irq_register_notify(l->irq + UART_IRQ_OUT_XON, uart_xon, l);
        avr_irq_register_notify(l->irq + UART_IRQ_OUT_XOFF, uart_xoff, l);
        publish(l);
    }
    printf("ready %s %s\n", links[0].path, links[1].path);
    fflush(stdout);

    uint64_t t0 = mono_ns();
    char line[512];
    size_t line_len = 0;
    int running = 1;
    while (running) {
        uint64_t now = mono_ns();
        uint64_t wall_us = (now - t0) / 1000u, emu_us = avr->cycle / CYCLES_PER_US;
        struct pollfd fds[3] = {{0, POLLIN, 0}, {links[0].master, POLLIN, 0}, {links[1].master, POLLIN, 0}};
        for (int i = 0; i < 2; i++) {
            if (links[i].replug_at_ns && now >= links[i].replug_at_ns) publish(&links[i]);
            fds[1 + i].fd = links[i].master;
            if (links[i].out_len) fds[1 + i].events |= POLLOUT;
        }
        int64_t ahead_us = (int64_t)emu_us - (int64_t)wall_us;
        struct timespec timeout = {0, ahead_us > 0 ? (long)ahead_us * 1000L : 0L};
        if (ppoll(fds, 3, &timeout, NULL) > 0) {
            if (fds[0].revents & (POLLIN | POLLHUP)) {
                ssize_t n = read(0, line + line_len, sizeof line - 1 - line_len);
                if (n <= 0) break;                /* the controlling process went away */
                line_len += (size_t)n;
                char *nl;
                while (running && (nl = memchr(line, '\n', line_len))) {
                    *nl = 0;
                    running = command(line);
                    size_t used = (size_t)(nl + 1 - line);
                    memmove(line, nl + 1, line_len - used);
                    line_len -= used;
                }
                if (line_len == sizeof line - 1) line_len = 0;
            }
            for (int i = 0; i < 2; i++) service_link(&links[i], fds[1 + i].revents);
        } else {
            for (int i = 0; i < 2; i++) service_link(&links[i], 0);
        }
        if (ahead_us > 200) continue;             /* ahead of the wall clock: wait for it */
        avr_cycle_count_t stop = avr->cycle + 1000ull * CYCLES_PER_US;   /* at most 1 ms emulated per turn */
        while (avr->cycle < stop) {
            run_due_actions();
            int state = avr_run(avr);
            loop_wake_check();
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "the MCU stopped (state %d) at cycle %llu\n", state, (unsigned long long)avr->cycle);
                running = 0;
                break;
            }
        }
        for (int i = 0; i < 2; i++) feed_uart(&links[i]);
    }
    for (int i = 0; i < 2; i++) unpublish(&links[i]);
    return 0;
}
