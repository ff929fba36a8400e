#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>

#include "board.h"

typedef struct {
    volatile uint8_t rx[256], tx[256];
    volatile uint8_t rx_head, rx_tail, tx_head, tx_tail;
} ring;

static ring rings[2];

#define UBRR_VALUE ((F_CPU + 4ul * BAUD) / (8ul * BAUD) - 1ul)   /* U2X: 16 MHz -> 3 (500000 Bd, 0 %) */

void uart_init(void) {
    UBRR0 = UBRR_VALUE;
    UCSR0A = _BV(U2X0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UBRR1 = UBRR_VALUE;
    UCSR1A = _BV(U2X1);
    UCSR1C = _BV(UCSZ11) | _BV(UCSZ10);
    UCSR1B = _BV(RXEN1) | _BV(TXEN1) | _BV(RXCIE1);
}

static inline void rx_put(ring *r, uint8_t b) {
    uint8_t next = (uint8_t)(r->rx_head + 1u);
    if (next != r->rx_tail) {             /* a full ring drops the byte: the protocol resends */
        r->rx[r->rx_head] = b;
        r->rx_head = next;
    }
}

ISR(USART0_RX_vect) { rx_put(&rings[0], UDR0); }
ISR(USART1_RX_vect) { rx_put(&rings[1], UDR1); }

ISR(USART0_UDRE_vect) {
    ring *r = &rings[0];
    if (r->tx_head == r->tx_tail) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = r->tx[r->tx_tail];
    r->tx_tail = (uint8_t)(r->tx_tail + 1u);
}

ISR(USART1_UDRE_vect) {
    ring *r = &rings[1];
    if (r->tx_head == r->tx_tail) {
        UCSR1B &= (uint8_t)~_BV(UDRIE1);
        return;
    }
    UDR1 = r->tx[r->tx_tail];
    r->tx_tail = (uint8_t)(r->tx_tail + 1u);
}

int uart_getc(uint8_t port) {
    ring *r = &rings[port];
    if (r->rx_head == r->rx_tail) return -1;
    uint8_t b = r->rx[r->rx_tail];
    r->rx_tail = (uint8_t)(r->rx_tail + 1u);
    return b;
}

uint8_t uart_rx_pending(void) {
    return rings[0].rx_head != rings[0].rx_tail || rings[1].rx_head != rings[1].rx_tail;
}

void uart_write(uint8_t port, const uint8_t *data, size_t n) {
    ring *r = &rings[port];
    for (size_t i = 0; i < n; i++) {
        uint8_t next = (uint8_t)(r->tx_head + 1u);
        while (next == r->tx_tail) {
        }                                 /* the UDRE interrupt drains the ring */
        r->tx[r->tx_head] = data[i];
        r->tx_head = next;
        if (port == 0) UCSR0B |= _BV(UDRIE0);
        else UCSR1B |= _BV(UDRIE1);
    }
}
