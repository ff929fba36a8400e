/* Two interrupt-driven UARTs (8N1) with 256-byte receive and transmit rings. */
#ifndef UART_H
#define UART_H
#include <stddef.h>
#include <stdint.h>
void uart_init(void);
int uart_getc(uint8_t port);                 /* -1 when nothing was received */
void uart_write(uint8_t port, const uint8_t *data, size_t n);   /* waits while the ring is full */
uint8_t uart_rx_pending(void);               /* any byte waiting on either port */
#endif
