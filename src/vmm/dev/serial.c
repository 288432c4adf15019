/* serial.c: the console: a 16550 UART at COM1 and line-buffered output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/dev/serial.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"

/* 16550 register offsets from the base port (PC16550D data sheet). */
enum {
	UART_RBR_THR = 0, /* DLL when LCR.DLAB */
	UART_IER = 1,	  /* DLM when LCR.DLAB */
	UART_IIR_FCR = 2,
	UART_LCR = 3,
	UART_MCR = 4,
	UART_LSR = 5,
	UART_MSR = 6,
	UART_SCR = 7,
};

#define UART_LCR_DLAB	  0x80
#define UART_IER_MASK	  0x0f
#define UART_MCR_MASK	  0x1f
#define UART_MCR_DTR	  0x01
#define UART_MCR_RTS	  0x02
#define UART_MCR_OUT1	  0x04
#define UART_MCR_OUT2	  0x08
#define UART_MCR_LOOP	  0x10
#define UART_IIR_NO_INT	  0x01
#define UART_IIR_THRI	  0x02 /* transmitter holding register empty */
#define UART_IIR_RDI	  0x04 /* received data available */
#define UART_IIR_FIFOS	  0xc0 /* FIFOs enabled (a 16550A's, which work) */
#define UART_FCR_ENABLE	  0x01
#define UART_FCR_CLEAR_RX 0x02
#define UART_IER_RDI	  0x01
#define UART_IER_THRI	  0x02
#define UART_LSR_DR	  0x01 /* data ready */
#define UART_LSR_THRE	  0x20 /* transmit holding register empty */
#define UART_LSR_TEMT	  0x40 /* transmitter empty */
#define UART_MSR_CTS	  0x10
#define UART_MSR_DSR	  0x20
#define UART_MSR_RI	  0x40
#define UART_MSR_DCD	  0x80

int serial_init(struct serial *s, unsigned ncpus, int out_fd)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->out_fd = out_fd;
	s->lines = calloc(ncpus, sizeof(*s->lines));
	if (!s->lines)
		return -ENOMEM;
	s->nlines = ncpus;
	s->hold.buf = malloc(SERIAL_HOLD_BYTES);
	if (!s->hold.buf) {
		free(s->lines);
		s->lines = NULL;
		return -ENOMEM;
	}
	r = pthread_mutex_init(&s->stream_lock, NULL);
	if (!r)
		r = pthread_mutex_init(&s->lock, NULL);
	if (r) {
		free(s->hold.buf);
		free(s->lines);
		s->lines = NULL;
		return -r;
	}
	return 0;
}

/* Write all of @buf to the terminal; the caller holds s->lock. */
static void terminal_write(struct serial *s, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(s->out_fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* a closed or full terminal must not stop the guest */
		buf += n;
		len -= (size_t)n;
	}
}

/* Every held line out as it was, in order; the caller holds s->lock. */
static void held_show(struct serial *s)
{
	struct serial_hold *h = &s->hold;
	unsigned i;

	for (i = 0; i < h->n; i++)
		terminal_write(s, h->buf + h->line[i].off, h->line[i].len);
	h->n = 0;
	h->used = 0;
}

static void note_write(struct serial *s, const char *note)
{
	if (!note[0])
		return;
	terminal_write(s, note, strlen(note));
	terminal_write(s, "\n", 1);
}

/*
 * The held block dropped: @note where its first dropped line was (at the
 * end when none was held: the line being judged is then the block), the
 * kept lines in their order.  The caller holds s->lock.
 */
static void held_drop(struct serial *s, const char *note)
{
	struct serial_hold *h = &s->hold;
	bool noted = false;
	unsigned i;

	for (i = 0; i < h->n; i++) {
		if (h->line[i].keep) {
			terminal_write(s, h->buf + h->line[i].off, h->line[i].len);
		} else if (!noted) {
			note_write(s, note);
			noted = true;
		}
	}
	if (!noted)
		note_write(s, note);
	h->n = 0;
	h->used = 0;
}

/* @len bytes at @buf (and a newline if @nl) held; false when past the bound. */
static bool hold_add(struct serial *s, const char *buf, size_t len, bool nl, bool keep)
{
	struct serial_hold *h = &s->hold;
	size_t need = len + (nl ? 1 : 0);

	if (h->n == SERIAL_HOLD_LINES || need > SERIAL_HOLD_BYTES - h->used)
		return false;
	memcpy(h->buf + h->used, buf, len);
	if (nl)
		h->buf[h->used + len] = '\n';
	h->line[h->n++] = (struct serial_held){
		.off = (uint32_t)h->used,
		.len = (uint32_t)need,
		.keep = keep,
	};
	h->used += need;
	return true;
}

/* This line out now: after the held ones, which go first. */
static void line_show(struct serial *s, const char *buf, size_t len, bool nl)
{
	held_show(s);
	terminal_write(s, buf, len);
	if (nl)
		terminal_write(s, "\n", 1);
}

/* A new block begins with this line, whatever became of the last. */
static void block_start(struct serial *s, const char *buf, size_t len, bool nl)
{
	s->hold.spilled = false;
	/* The hold is empty: a line of SERIAL_LINE_MAX bytes fits. */
	if (!hold_add(s, buf, len, nl, false))
		line_show(s, buf, len, nl);
}

/* Do what the sink said with one line (@len bytes, plus a newline if @nl); under s->lock. */
static void line_judged(struct serial *s, enum console_verdict v, const char *buf, size_t len,
			bool nl, const char *note)
{
	struct serial_hold *h = &s->hold;

	switch (v) {
	case CONSOLE_HOLD:
	case CONSOLE_HOLD_KEEP:
		if (h->spilled) {
			line_show(s, buf, len, nl);
		} else if (!hold_add(s, buf, len, nl, v == CONSOLE_HOLD_KEEP)) {
			/*
			 * Too long for a block the sink can replace: show
			 * it, and the rest of it as it comes.
			 */
			line_show(s, buf, len, nl);
			h->spilled = true;
		}
		return;
	case CONSOLE_DROP:
	case CONSOLE_DROP_THEN_HOLD:
		if (h->spilled) {
			/* The block is out already: its end too, then the note (still true). */
			if (v == CONSOLE_DROP)
				line_show(s, buf, len, nl);
			note_write(s, note);
		} else {
			held_drop(s, note);
		}
		h->spilled = false;
		if (v == CONSOLE_DROP_THEN_HOLD)
			block_start(s, buf, len, nl);
		return;
	case CONSOLE_SHOW_THEN_HOLD:
		held_show(s);
		block_start(s, buf, len, nl);
		return;
	case CONSOLE_SHOW:
	default:
		h->spilled = false;
		line_show(s, buf, len, nl);
		return;
	}
}

static void line_emit(struct serial *s, struct serial_line *l, bool add_newline)
{
	enum console_verdict v = CONSOLE_SHOW;
	char note[SERIAL_LINE_MAX];

	/* Stdout may be the terminal stderr's status line is on. */
	log_before_output();
	pthread_mutex_lock(&s->lock);
	note[0] = '\0';
	if (s->line_hook)
		v = s->line_hook(s->line_ctx, l->buf,
				 l->len && l->buf[l->len - 1] == '\n' ? l->len - 1 : l->len, note,
				 sizeof(note));
	note[sizeof(note) - 1] = '\0';
	line_judged(s, v, l->buf, l->len, add_newline, note);
	pthread_mutex_unlock(&s->lock);
	l->len = 0;
}

void console_write(struct serial *s, unsigned cpu, const void *buf, size_t len)
{
	const char *p = buf;
	struct serial_line *l;

	if (cpu >= s->nlines)
		cpu = 0;
	l = &s->lines[cpu];
	while (len) {
		const char *nl = memchr(p, '\n', len);
		size_t take = nl ? (size_t)(nl - p) + 1 : len;
		size_t room = SERIAL_LINE_MAX - l->len;

		/* A line longer than the buffer goes out in pieces. */
		if (take > room)
			take = room;
		memcpy(l->buf + l->len, p, take);
		l->len += take;
		p += take;
		len -= take;
		if (l->len == SERIAL_LINE_MAX || l->buf[l->len - 1] == '\n')
			line_emit(s, l, false);
	}
}

void console_flush_line(struct serial *s, unsigned cpu)
{
	if (cpu < s->nlines && s->lines[cpu].len)
		line_emit(s, &s->lines[cpu], true);
}

void console_flush(struct serial *s)
{
	unsigned i;

	for (i = 0; i < s->nlines; i++)
		if (s->lines[i].len)
			line_emit(s, &s->lines[i], true);
	/*
	 * A block cut off by the end of the run is shown as it was.  No vCPU
	 * runs now, so the hold cannot fill between the look and the lock.
	 */
	if (s->hold.n)
		log_before_output();
	pthread_mutex_lock(&s->lock);
	held_show(s);
	s->hold.spilled = false;
	pthread_mutex_unlock(&s->lock);
}

void console_show_held(struct serial *s)
{
	log_before_output();
	pthread_mutex_lock(&s->lock);
	if (s->hold.n) {
		held_show(s);
		s->hold.spilled = true;
	}
	pthread_mutex_unlock(&s->lock);
}

void serial_destroy(struct serial *s)
{
	if (!s->lines)
		return;
	console_flush(s);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->stream_lock);
	free(s->hold.buf);
	s->hold.buf = NULL;
	free(s->lines);
	s->lines = NULL;
}

/* Modem status: in loopback the outputs of MCR feed the inputs back. */
static uint8_t uart_msr(const struct serial *s)
{
	uint8_t msr = 0;

	if (!(s->mcr & UART_MCR_LOOP))
		return UART_MSR_DCD | UART_MSR_DSR | UART_MSR_CTS;
	if (s->mcr & UART_MCR_RTS)
		msr |= UART_MSR_CTS;
	if (s->mcr & UART_MCR_DTR)
		msr |= UART_MSR_DSR;
	if (s->mcr & UART_MCR_OUT1)
		msr |= UART_MSR_RI;
	if (s->mcr & UART_MCR_OUT2)
		msr |= UART_MSR_DCD;
	return msr;
}

/* The interrupt the UART would raise now, as IIR reports it (by priority). */
static uint8_t uart_iir(const struct serial *s)
{
	if ((s->ier & UART_IER_RDI) && s->rx_len)
		return UART_IIR_RDI;
	if ((s->ier & UART_IER_THRI) && s->thre_int)
		return UART_IIR_THRI;
	return UART_IIR_NO_INT;
}

/* Drive the line after a register access; the caller holds s->lock. */
static void uart_update_irq(struct serial *s)
{
	bool level = (s->mcr & UART_MCR_OUT2) && uart_iir(s) != UART_IIR_NO_INT;

	if (s->irq && level != s->irq_level) {
		s->irq_level = level;
		s->irq(s->irq_ctx, level);
	}
}

static uint8_t rx_pop(struct serial *s)
{
	uint8_t b;

	if (!s->rx_len)
		return 0;
	b = s->rx[s->rx_head];
	s->rx_head = (s->rx_head + 1) % SERIAL_RX_MAX;
	s->rx_len--;
	return b;
}

static bool rx_push(struct serial *s, uint8_t b)
{
	if (s->rx_len == SERIAL_RX_MAX)
		return false;
	s->rx[(s->rx_head + s->rx_len) % SERIAL_RX_MAX] = b;
	s->rx_len++;
	return true;
}

/* One register read; the caller holds s->lock. */
static uint8_t uart_read(struct serial *s, unsigned reg)
{
	bool dlab = s->lcr & UART_LCR_DLAB;
	uint8_t iir;

	switch (reg) {
	case UART_RBR_THR: return dlab ? s->dll : rx_pop(s);
	case UART_IER: return dlab ? s->dlm : s->ier;
	case UART_IIR_FCR:
		iir = uart_iir(s);
		if (iir == UART_IIR_THRI)
			s->thre_int = false; /* reading IIR acknowledges it */
		return iir | (s->fifo ? UART_IIR_FIFOS : 0);
	case UART_LCR: return s->lcr;
	case UART_MCR: return s->mcr;
	case UART_LSR: /* the transmitter is always ready */
		return UART_LSR_THRE | UART_LSR_TEMT | (s->rx_len ? UART_LSR_DR : 0);
	case UART_MSR: return uart_msr(s);
	case UART_SCR: return s->scr;
	default: return 0xff;
	}
}

/*
 * One register write; the caller holds s->lock.  Returns true when @v is a
 * byte to transmit, which the caller sends after dropping the lock.
 */
static bool uart_write(struct serial *s, unsigned reg, uint8_t v)
{
	bool dlab = s->lcr & UART_LCR_DLAB;

	switch (reg) {
	case UART_RBR_THR:
		if (dlab) {
			s->dll = v;
			break;
		}
		/* The byte leaves at once: the holding register is empty again. */
		s->thre_int = true;
		if (s->mcr & UART_MCR_LOOP) /* a real UART hears itself */
			rx_push(s, v);
		return true;
	case UART_IER:
		if (dlab) {
			s->dlm = v;
			break;
		}
		/* Enabling the empty-transmitter interrupt raises it at once. */
		if ((v & UART_IER_THRI) && !(s->ier & UART_IER_THRI))
			s->thre_int = true;
		s->ier = v & UART_IER_MASK;
		break;
	case UART_IIR_FCR:
		/*
		 * The transmitter has no FIFO to fill (bytes leave at once), but
		 * saying there is one lets Linux's console write 16 bytes per
		 * LSR poll instead of one: half the exits per console byte.
		 */
		s->fifo = v & UART_FCR_ENABLE;
		if (v & UART_FCR_CLEAR_RX)
			s->rx_len = 0;
		break;
	case UART_LCR: s->lcr = v; break;
	case UART_MCR: s->mcr = v & UART_MCR_MASK; break;
	case UART_SCR: s->scr = v; break;
	default: break; /* LSR, MSR: nothing to keep */
	}
	return false;
}

void serial_io(struct serial *s, unsigned cpu, uint16_t port, bool is_write, uint8_t *data,
	       unsigned size, unsigned count)
{
	unsigned base = (unsigned)(port - CSAN_COM1_PORT);
	unsigned i, j;

	/* A wide access covers consecutive registers; string I/O repeats it. */
	for (i = 0; i < count; i++) {
		for (j = 0; j < size; j++) {
			uint8_t *b = &data[(size_t)i * size + j];
			unsigned reg = base + j;
			bool transmit = false;

			if (reg >= SERIAL_NPORTS) {
				if (!is_write)
					*b = 0xff;
				continue;
			}
			pthread_mutex_lock(&s->lock);
			if (is_write)
				/* In loopback a real UART does not drive its output pin. */
				transmit = uart_write(s, reg, *b) && !(s->mcr & UART_MCR_LOOP);
			else
				*b = uart_read(s, reg);
			uart_update_irq(s);
			pthread_mutex_unlock(&s->lock);
			if (transmit)
				console_write(s, s->one_stream ? s->nlines - 1 : cpu, b, 1);
		}
	}
}

int serial_pio(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	       unsigned size, unsigned count)
{
	struct serial *s = ctx;

	/*
	 * One stream has one writer at a time: a write that exits (the ring
	 * was full) must not append while another vCPU drains the ring.
	 */
	if (s->one_stream && is_write)
		pthread_mutex_lock(&s->stream_lock);
	serial_io(s, vcpu->id, port, is_write, data, size, count);
	if (s->one_stream && is_write)
		pthread_mutex_unlock(&s->stream_lock);
	return VCPU_RESUME;
}

void serial_set_irq(struct serial *s, void (*irq)(void *ctx, bool level), void *ctx)
{
	pthread_mutex_lock(&s->lock);
	s->irq = irq;
	s->irq_ctx = ctx;
	pthread_mutex_unlock(&s->lock);
}

size_t serial_receive(struct serial *s, const uint8_t *buf, size_t len)
{
	size_t n = 0;

	pthread_mutex_lock(&s->lock);
	while (s->irq && n < len && rx_push(s, buf[n]))
		n++;
	uart_update_irq(s);
	pthread_mutex_unlock(&s->lock);
	return n;
}

static int flush_before_fault(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vm;
	/*
	 * This vCPU's last words belong before the fault report, and so do
	 * the lines held for the sink (a report's block it may never close).
	 */
	console_flush_line(ctx, vcpu->id);
	console_show_held(ctx);
	return 0;
}

static int flush_at_end(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vm;
	(void)vcpu;
	console_flush(ctx);
	return 0;
}

static int destroy_at_vm_destroy(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vcpu;
	serial_destroy(ctx);
	free(ctx);
	vm->serial = NULL;
	return 0;
}

int serial_set_line_sink(struct serial *s, const char *owner, console_line_sink fn, void *ctx,
			 char *why, size_t whylen)
{
	int r = 0;

	pthread_mutex_lock(&s->lock);
	if (fn && s->line_hook) {
		why_set(why, whylen,
			"internal error: the console's lines go to %s already, not to %s",
			s->line_owner, owner);
		r = -EBUSY;
	} else {
		/* What the last sink held is shown: no verdict will come for it. */
		if (!fn) {
			held_show(s);
			s->hold.spilled = false;
		}
		s->line_hook = fn;
		s->line_ctx = ctx;
		s->line_owner = fn ? owner : NULL;
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

int serial_attach(struct vm *vm, int out_fd, char *why, size_t whylen)
{
	struct serial *s = calloc(1, sizeof(*s));
	int r;

	if (!s) {
		why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/* One line buffer per vCPU and one for one_stream. */
	r = serial_init(s, vm->ncpus + 1, out_fd);
	if (r) {
		free(s);
		return why_errno(why, whylen, -r, "cannot set up the console");
	}
	r = vm_hook_add(vm, VM_HOOK_DESTROY, "16550", destroy_at_vm_destroy, s, why, whylen);
	if (r) {
		serial_destroy(s);
		free(s);
		return r;
	}
	vm->serial = s;
	r = pio_register(&vm->pio, CSAN_COM1_PORT, SERIAL_NPORTS, "16550", serial_pio, s, why,
			 whylen);
	if (!r)
		r = vm_hook_add(vm, VM_HOOK_BEFORE_FAULT, "16550", flush_before_fault, s, why,
				whylen);
	if (!r)
		r = vm_hook_add(vm, VM_HOOK_RUN_END, "16550", flush_at_end, s, why, whylen);
	return r;
}
