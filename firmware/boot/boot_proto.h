/* The update path (docs/protocol.md §8.8, docs/hardware.md): what the application, the boot loader, the
 * emulation harness and the host agree on. Plain C99, no platform dependency.
 *
 * The host asks the running application for the boot loader with ENTER_BOOTLOADER (0x60, a reliable session
 * message whose payload repeats the unit's session id from its HELLO and the word "BOOT": a frame meant for
 * another unit, or left over from an earlier session, never restarts this one). The application sets the
 * request byte in EEPROM and lets the watchdog reset the chip; the boot loader (BOOTRST: it runs first at
 * every reset) then speaks the frames below on USART0, the seat reader's link, one request and one answer
 * at a time (the answer repeats the request's seq). Each request is idempotent: a lost answer is asked
 * again. */
#ifndef BT_BOOT_PROTO_H
#define BT_BOOT_PROTO_H

/* BT_ENTER_BOOTLOADER 0x60 (protocol/bt_proto.h): host -> application, session_id u32, "BOOT" */
#define BT_BOOT_QUERY 0x61u         /* host -> boot loader: empty; answered by BOOT_INFO */
#define BT_BOOT_INFO 0x62u          /* boot loader -> host: the layout below; also sent once on entry */
#define BT_BOOT_WRITE 0x63u         /* host -> boot loader: address u32 (page-aligned), 1..256 bytes */
#define BT_BOOT_COMMIT 0x64u        /* host -> boot loader: length u32, crc32 u32, version (u8 n, n bytes) */
#define BT_BOOT_START 0x65u         /* host -> boot loader: empty; start the application if it is valid */
#define BT_BOOT_RESULT 0x66u        /* boot loader -> host: request type u8, status u8, value u32 */

/* BOOT_INFO: boot loader version u8, why it runs u8 (BT_BOOT_WHY_*), page size u16, application space u32,
 * application valid u8, its version (u8 n, n bytes) */
#define BT_BOOT_LOADER_VERSION 1u
#define BT_BOOT_WHY_ASKED 1u        /* the application asked (ENTER_BOOTLOADER) */
#define BT_BOOT_WHY_NO_APP 2u       /* no valid application: never installed, or an update left unfinished */

enum bt_boot_status {
    BT_BOOT_OK = 0, BT_BOOT_BAD_ADDRESS = 1, BT_BOOT_VERIFY_FAILED = 2, BT_BOOT_CRC_MISMATCH = 3,
    BT_BOOT_BAD_REQUEST = 4, BT_BOOT_NO_VALID_APP = 5
};

/* ATmega2560: 256-byte (128-word) SPM pages; the boot section is 2048 words (4 KiB) at word 0x1F800, byte
 * 0x3F000 (BOOTSZ1:0 = 01; data sheet, "Boot Loader Support": the page size and "Boot Size Configuration"
 * tables): the application owns bytes 0 .. 0x3EFFF. */
#define BT_BOOT_PAGE 256u
#define BT_BOOT_START_BYTE 0x3F000ul
#define BT_APP_MAX BT_BOOT_START_BYTE

/* EEPROM (4 KiB): the identity uses the first 58 bytes (src/identity.c); the update path the last 64. The
 * application record says which image the boot loader may start: its length, CRC-32 and version; "magic" is
 * written last and erased first, so a record half written (power lost) is never taken for a valid one. */
#define BT_EE_APP_RECORD 0xFC0u     /* magic u16 (BT_APP_MAGIC), length u32, crc32 u32, version u8 n + 32 */
#define BT_EE_APP_MAGIC_AT BT_EE_APP_RECORD
#define BT_EE_APP_LENGTH_AT (BT_EE_APP_RECORD + 2u)
#define BT_EE_APP_CRC_AT (BT_EE_APP_RECORD + 6u)
#define BT_EE_APP_VERSION_AT (BT_EE_APP_RECORD + 10u)
#define BT_APP_VERSION_MAX 32u
#define BT_APP_MAGIC 0xA77Bu
#define BT_EE_BOOT_REQUEST 0xFFFu   /* BT_BOOT_REQUESTED: stay in the boot loader at the next reset */
#define BT_BOOT_REQUESTED 0xB0u
#define BT_ENTER_MAGIC "BOOT"

#endif
