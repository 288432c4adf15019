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
 * The most the console holds back for its line sink: a Linux KCSAN
 * report is 30 to 60 lines (two stacks of up to 64 frames at the very
 * most); a block longer than this is shown as it comes instead.
 */
#define SERIAL_HOLD_LINES 256
#define SERIAL_HOLD_BYTES (64 * 1024)

/*
 * What the console does with a whole line its sink has seen, and with the
 * lines it holds back for the sink: a block the sink may still replace
 * with one line of its own (a report csan-vmm prints itself, on stderr).
 * Whatever the verdicts, lines leave in console order and a held line is
 * never lost: the end of the run, a fault, a new sink or a block past the
 * bound (SERIAL_HOLD_*) shows what is held, as it was.
 */
enum console_verdict {
	CONSOLE_SHOW = 0,  /* the held lines as they were, then this line */
	CONSOLE_HOLD,	   /* held: a line of the block the sink may drop */
	CONSOLE_HOLD_KEEP, /* held for its place; shown whatever becomes of the block */
	/*
	 * The block (its held lines but the kept ones, and this line) is
	 * dropped: the sink's note, if it wrote one, takes the place of its
	 * first line, and the kept lines follow in their order.
	 */
	CONSOLE_DROP,
	CONSOLE_SHOW_THEN_HOLD, /* the held lines shown, this one held: a new block's first */
	CONSOLE_DROP_THEN_HOLD, /* the block dropped as by DROP, this one held: a new block's first
				 */
};

/*
 * A line sink: sees one whole console line (@len bytes at @line, without
 * its newline) and says what becomes of it.  With CONSOLE_DROP or
 * CONSOLE_DROP_THEN_HOLD it may write one line, without a newline, into
 * @note (@notelen bytes, "" on entry), shown in the dropped block's place.
 */
typedef enum console_verdict (*console_line_sink)(void *ctx, const char *line, size_t len,
						  char *note, size_t notelen);

/* One line held back for the sink: its bytes (newline included) in serial_hold.buf. */
struct serial_held {
	uint32_t off, len;
	bool keep; /* CONSOLE_HOLD_KEEP: shown even when the block is dropped */
};

/* The lines held back for the sink, in console order; under serial.lock. */
struct serial_hold {
	char *buf; /* SERIAL_HOLD_BYTES */
	size_t used;
	unsigned n;
	struct serial_held line[SERIAL_HOLD_LINES];
	/*
	 * The block went out before the sink's verdict on it (past the
	 * bound, or a fault): its remaining lines go out as they come, and
	 * its end shows the note after it instead of dropping it.
	 */
	bool spilled;
};

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
	 * its newline (the guest profile's console_line), and says whether it
	 * is shown, held or dropped; NULL: nobody, every line shown.  Set
	 * with serial_set_line_sink, before the vCPUs run.
	 */
	console_line_sink line_hook;
	void *line_ctx;
	const char *line_owner;
	struct serial_hold hold;
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
 * newline), then every line held for the sink, as they were: at the end
 * of the run, when no vCPU thread is running.
 */
void console_flush(struct serial *s);

/*
 * console_show_held - write out the lines held for the sink now, as they
 * were, ahead of something that must follow them (a fault report); the
 * rest of their block goes out as it comes.  Any thread.
 */
void console_show_held(struct serial *s);

/*
 * serial_set_line_sink - hand every whole console line from now on to
 * @fn(@ctx, line, len, note, notelen), on behalf of @owner, and do with
 * it what @fn says; NULL @fn stops it (what it held is shown).  Before
 * the vCPUs run, or after they stopped.  Returns 0, or -EBUSY when
 * another owner has the sink (both named in @why).
 */
int serial_set_line_sink(struct serial *s, const char *owner, console_line_sink fn, void *ctx,
			 char *why, size_t whylen);

/*
 * serial_attach - give @vm its console UART at COM1, writing whole lines
 * to @out_fd: the ports on the bus, the flush of a vCPU's line before a
 * fault report and of every line at the end of the run, and its release
 * with the VM.  Sets vm->serial.  Returns 0, or a negative errno with a
 * message in @why.
 */
int serial_attach(struct vm *vm, int out_fd, char *why, size_t whylen);

#endif /* CSAN_VMM_SERIAL_H */
