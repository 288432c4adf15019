/* serial.h: the console: a 16550 UART at COM1 and line-buffered output. */
#ifndef CSAN_VMM_SERIAL_H
#define CSAN_VMM_SERIAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"

struct vcpu;
struct vm;

#define SERIAL_NPORTS	8
#define SERIAL_LINE_MAX 512
#define SERIAL_RX_MAX	64 /* bytes typed ahead of the guest's reads */
#define SERIAL_IRQ	4  /* COM1's ISA IRQ */

/*
 * One partial line per vCPU: bytes collect here until a newline, so that
 * lines from different vCPUs reach the terminal whole even when the guest
 * writes them byte by byte without a lock.  Only the owning vCPU's thread
 * appends; the terminal write happens under serial.lock.
 */
struct serial_line {
	size_t len;
	char buf[SERIAL_LINE_MAX];
};

struct serial {
	pthread_mutex_t lock; /* UART registers and the terminal */
	/*
	 * One stream has one writer at a time: a write that exits (KVM's
	 * coalesced ring was full) must not append while another vCPU drains
	 * the ring (console/console_ring.c takes it too).
	 */
	pthread_mutex_t stream_lock;
	int out_fd;
	unsigned nlines;
	struct serial_line *lines;
	/*
	 * Sees every whole line in console order, under the lock, without
	 * its newline (the guest profile's console_line); NULL: nobody.
	 * Set with serial_set_line_sink, before the vCPUs run.
	 */
	void (*line_hook)(void *ctx, const char *line, size_t len);
	void *line_ctx;
	const char *line_owner;
	/* 16550 registers the guest may write and read back. */
	uint8_t ier, lcr, mcr, scr, dll, dlm;
	/*
	 * Every transmitted byte joins one line buffer (the last), whichever
	 * vCPU wrote it: for console_ring.c, whose ring does not say.
	 */
	bool one_stream;
	bool fifo; /* FCR bit 0: FIFOs on, so IIR says "16550A" and Linux writes 16 at a time */
	/*
	 * The receiver and the interrupt line, for guests that use them
	 * (Linux): wired only once serial_set_irq() gave a line to drive.
	 */
	void (*irq)(void *ctx, bool level);
	void *irq_ctx;
	bool irq_level; /* what the line was last set to */
	bool thre_int;	/* transmitter-empty interrupt pending (IIR 0x02) */
	uint8_t rx[SERIAL_RX_MAX];
	unsigned rx_head, rx_len;
};

/*
 * serial_init - set up @s for @ncpus vCPUs writing to @out_fd.
 * Returns 0, or -ENOMEM / a pthread error as a negative errno.
 */
int serial_init(struct serial *s, unsigned ncpus, int out_fd);

/* serial_destroy - flush and free what serial_init made. */
void serial_destroy(struct serial *s);

/*
 * serial_io - a guest access of @size bytes (@count times, for string
 * I/O) to UART port @port from vCPU @cpu: writes take bytes from @data,
 * reads fill it.  Each byte is one register access, as on the real chip.
 */
void serial_io(struct serial *s, unsigned cpu, uint16_t port, bool is_write, uint8_t *data,
	       unsigned size, unsigned count);

/*
 * serial_set_irq - wire the UART's interrupt: @irq(@ctx, level) is called,
 * under the UART's lock, whenever the line changes (IER, pending data or
 * transmitter-empty, MCR OUT2 as on a PC).  Also turns the receiver on
 * for serial_receive().  Call before the vCPUs run.
 */
void serial_set_irq(struct serial *s, void (*irq)(void *ctx, bool level), void *ctx);

/*
 * serial_receive - bytes typed for the guest: queued in the receiver (up
 * to SERIAL_RX_MAX waiting), raising the interrupt if enabled.  Returns
 * how many were taken: 0 when no interrupt is wired (the bundled guest
 * reads no input) or the queue is full.  Any thread.
 */
size_t serial_receive(struct serial *s, const uint8_t *buf, size_t len);

/* serial_pio - serial_io as a pio_handler (pio.h); @ctx is the struct serial. */
int serial_pio(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	       unsigned size, unsigned count);

/*
 * console_write - append @len bytes at @buf to vCPU @cpu's line and write
 * every completed line to the terminal under the console lock.  Used by
 * the UART and CSAN_HC_PUTS alike.
 */
void console_write(struct serial *s, unsigned cpu, const void *buf, size_t len);

/*
 * console_flush_line - write out vCPU @cpu's partial line, ended with a
 * newline; only from that vCPU's thread (before it reports a fault).
 */
void console_flush_line(struct serial *s, unsigned cpu);

/*
 * console_flush - write out every vCPU's partial line (ended with a
 * newline) at the end of the run, when no vCPU thread is running.
 */
void console_flush(struct serial *s);

/*
 * serial_set_line_sink - hand every whole console line from now on to
 * @fn(@ctx, line, len), on behalf of @owner; NULL @fn stops it.  Before
 * the vCPUs run, or after they stopped.  Returns 0, or -EBUSY when
 * another owner has the sink (both named in @why).
 */
int serial_set_line_sink(struct serial *s, const char *owner,
			 void (*fn)(void *ctx, const char *line, size_t len), void *ctx, char *why,
			 size_t whylen);

/*
 * serial_attach - give @vm its console UART at COM1, writing whole lines
 * to @out_fd: the ports on the bus, the flush of a vCPU's line before a
 * fault report and of every line at the end of the run, and its release
 * with the VM.  Sets vm->serial.  Returns 0, or a negative errno with a
 * message in @why.
 */
int serial_attach(struct vm *vm, int out_fd, char *why, size_t whylen);

#endif /* CSAN_VMM_SERIAL_H */
