/* test-serial.c: the 16550's receiver and interrupt line, as Linux's 8250 driver drives them. */
#include <fcntl.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "csan/abi.h"
#include "vmm/dev/serial.h"
#include "check.h"

#define COM1 CSAN_COM1_PORT

static int irq_level = -1, irq_calls;

static void record_irq(void *ctx, bool level)
{
	(void)ctx;
	irq_level = level;
	irq_calls++;
}

static uint8_t in(struct serial *s, unsigned reg)
{
	uint8_t b = 0;

	serial_io(s, 0, (uint16_t)(COM1 + reg), false, &b, 1, 1);
	return b;
}

static void out(struct serial *s, unsigned reg, uint8_t v)
{
	serial_io(s, 0, (uint16_t)(COM1 + reg), true, &v, 1, 1);
}

/* A line sink: the last whole line it saw. */
static char last_line[64];

static void keep_line(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	snprintf(last_line, sizeof(last_line), "%.*s", (int)len, line);
}

int main(void)
{
	int null = open("/dev/null", O_WRONLY);
	struct serial s;
	char why[256];

	CHECK(null >= 0 && serial_init(&s, 1, null) == 0);
	/* One sink for the console's lines; a second owner is refused by name. */
	CHECK(serial_set_line_sink(&s, "first", keep_line, NULL, why, sizeof(why)) == 0);
	CHECK(serial_set_line_sink(&s, "second", keep_line, NULL, why, sizeof(why)) == -EBUSY);
	CHECK(strstr(why, "first") && strstr(why, "second"));
	console_write(&s, 0, "hello\n", 6);
	CHECK(strcmp(last_line, "hello") == 0);
	CHECK(serial_set_line_sink(&s, "first", NULL, NULL, why, sizeof(why)) == 0);
	console_write(&s, 0, "again\n", 6);
	CHECK(strcmp(last_line, "hello") == 0);
	/* The bundled guest's UART: no line wired, no input taken. */
	CHECK_EQ_U64(serial_receive(&s, (const uint8_t *)"x", 1), 0);
	CHECK_EQ_U64(in(&s, 5) & 0x01, 0); /* LSR.DR */
	CHECK_EQ_U64(in(&s, 2), 0x01);	   /* IIR: none */

	serial_set_irq(&s, record_irq, NULL);
	out(&s, 1, 0x01); /* IER: received data */
	CHECK_EQ_U64(serial_receive(&s, (const uint8_t *)"ab", 2), 2);
	CHECK(irq_level != 1); /* MCR.OUT2 still off: the line stays low */
	out(&s, 4, 0x08);      /* MCR.OUT2 */
	CHECK_EQ_U64(irq_level, 1);
	CHECK_EQ_U64(in(&s, 2), 0x04);	   /* IIR: received data */
	CHECK_EQ_U64(in(&s, 5) & 0x01, 1); /* LSR.DR */
	CHECK_EQ_U64(in(&s, 0), 'a');
	CHECK_EQ_U64(irq_level, 1);
	CHECK_EQ_U64(in(&s, 0), 'b');
	CHECK_EQ_U64(irq_level, 0);
	CHECK_EQ_U64(in(&s, 5) & 0x01, 0);

	/* Transmitter empty: raised when enabled and after each byte, cleared by IIR. */
	out(&s, 1, 0x03);
	CHECK_EQ_U64(irq_level, 1);
	CHECK_EQ_U64(in(&s, 2), 0x02);
	CHECK_EQ_U64(irq_level, 0);
	CHECK_EQ_U64(in(&s, 2), 0x01);
	out(&s, 0, 'z');
	CHECK_EQ_U64(irq_level, 1);
	out(&s, 1, 0x00); /* IER off: the line drops */
	CHECK_EQ_U64(irq_level, 0);

	/* A full queue takes no more. */
	for (int i = 0; i < SERIAL_RX_MAX; i++)
		CHECK_EQ_U64(serial_receive(&s, (const uint8_t *)"q", 1), 1);
	CHECK_EQ_U64(serial_receive(&s, (const uint8_t *)"q", 1), 0);
	serial_destroy(&s);
	close(null);
	return check_exit_status("test-serial");
}
