/*
 * test-serial.c: the 16550's receiver and interrupt line, as Linux's 8250
 * driver drives them, and the console's lines held, shown and dropped as
 * its sink says.
 */
#include <fcntl.h>
#include <stdlib.h>
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

static enum console_verdict keep_line(void *ctx, const char *line, size_t len, char *note,
				      size_t notelen)
{
	(void)ctx;
	(void)note;
	(void)notelen;
	snprintf(last_line, sizeof(last_line), "%.*s", (int)len, line);
	return CONSOLE_SHOW;
}

/*
 * A sink that reads its verdict off each line's first letter: S show, H
 * hold, K hold and keep, D drop, T show then hold, X drop then hold; a
 * drop's note names the line that ended the block.
 */
static enum console_verdict scripted(void *ctx, const char *line, size_t len, char *note,
				     size_t notelen)
{
	(void)ctx;
	if (!len)
		return CONSOLE_SHOW;
	switch (line[0]) {
	case 'H': return CONSOLE_HOLD;
	case 'K': return CONSOLE_HOLD_KEEP;
	case 'T': return CONSOLE_SHOW_THEN_HOLD;
	case 'D':
	case 'X':
		snprintf(note, notelen, "[note %.*s]", (int)len, line);
		return line[0] == 'D' ? CONSOLE_DROP : CONSOLE_DROP_THEN_HOLD;
	default: return CONSOLE_SHOW;
	}
}

/* What the console wrote to @fd since the last call (the file emptied). */
static char *written(int fd)
{
	static char buf[2 * SERIAL_HOLD_BYTES + 4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	CHECK(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
	return buf;
}

static void say(struct serial *s, unsigned cpu, const char *text)
{
	console_write(s, cpu, text, strlen(text));
}

/* The hold: blocks dropped for a note, released, bounded, never lost. */
static void test_hold(void)
{
	char path[] = "/tmp/test-serial-XXXXXX", why[256], *long_line, *expect, *p;
	int fd = mkstemp(path);
	struct serial s;
	unsigned i;

	CHECK(fd >= 0);
	unlink(path);
	CHECK(serial_init(&s, 2, fd) == 0);
	CHECK(serial_set_line_sink(&s, "script", scripted, NULL, why, sizeof(why)) == 0);

	/* A block dropped: the note where its first line was, kept lines after, in order. */
	say(&s, 0, "Sbefore\nHrule\nKother cpu\nHtitle\nDrule\nSafter\n");
	CHECK_STREQ(written(fd), "Sbefore\n[note Drule]\nKother cpu\nSafter\n");

	/* Not a block after all: every held line shown as it was, then the line. */
	say(&s, 0, "Hrule\nKline\nHmore\nSplain\n");
	CHECK_STREQ(written(fd), "Hrule\nKline\nHmore\nSplain\n");
	/* Held lines wait: nothing is written until the verdict. */
	say(&s, 0, "Hrule\nKline\n");
	CHECK_STREQ(written(fd), "");
	say(&s, 0, "Sdone\n");
	CHECK_STREQ(written(fd), "Hrule\nKline\nSdone\n");

	/* A lone dropped line becomes its note; a block of only kept lines keeps them. */
	say(&s, 0, "Dalone\nKa\nKb\nDend\n");
	CHECK_STREQ(written(fd), "[note Dalone]\nKa\nKb\n[note Dend]\n");

	/* A new block from the line that settles the last: shown, then dropped. */
	say(&s, 0, "Hr1\nTr2\nHt2\nDe2\n");
	CHECK_STREQ(written(fd), "Hr1\n[note De2]\n");
	say(&s, 0, "Hr1\nXt2\nHb2\nDe2\n");
	CHECK_STREQ(written(fd), "[note Xt2]\n[note De2]\n");

	/* Lines of two vCPUs, held in console order. */
	say(&s, 1, "Kcpu1 ");
	say(&s, 0, "Hrule\n");
	say(&s, 1, "half\n");
	say(&s, 0, "Sx\n");
	CHECK_STREQ(written(fd), "Hrule\nKcpu1 half\nSx\n");

	/* Past the line bound: the block shown in full and in order, the note after it. */
	expect = calloc(1, (SERIAL_HOLD_LINES + 20) * 8 + 64);
	CHECK(expect != NULL);
	for (i = 0, p = expect; i < SERIAL_HOLD_LINES + 10; i++) {
		char line[16];

		snprintf(line, sizeof(line), "H%u\n", i);
		say(&s, 0, line);
		p += sprintf(p, "%s", line);
	}
	CHECK_STREQ(written(fd), expect); /* out as soon as the bound was passed */
	say(&s, 0, "Hlate\nDend\nHnext\nDagain\n");
	CHECK_STREQ(written(fd), "Hlate\nDend\n[note Dend]\n[note Dagain]\n");

	/* Past the byte bound: the same, with lines as long as the console makes them. */
	long_line = malloc(SERIAL_LINE_MAX);
	CHECK(long_line != NULL);
	memset(long_line, 'H', SERIAL_LINE_MAX - 1);
	long_line[SERIAL_LINE_MAX - 1] = '\n';
	for (i = 0; i < SERIAL_HOLD_BYTES / SERIAL_LINE_MAX + 1; i++)
		console_write(&s, 0, long_line, SERIAL_LINE_MAX);
	CHECK_EQ_U64(strlen(written(fd)),
		     (SERIAL_HOLD_BYTES / SERIAL_LINE_MAX + 1) * SERIAL_LINE_MAX);
	say(&s, 0, "Dend\n");
	CHECK_STREQ(written(fd), "Dend\n[note Dend]\n");

	/* Before a fault report: the held lines out, the rest of the block as it comes. */
	say(&s, 0, "Hrule\nKx\n");
	console_show_held(&s);
	CHECK_STREQ(written(fd), "Hrule\nKx\n");
	say(&s, 0, "Hy\n");
	CHECK_STREQ(written(fd), "Hy\n");
	say(&s, 0, "Dz\nHnew\nDend\n");
	CHECK_STREQ(written(fd), "Dz\n[note Dz]\n[note Dend]\n");

	/* Cut off by the end of the run: shown as it was, the partial line too. */
	say(&s, 0, "Hrule\nKx\nHtitle\n");
	say(&s, 1, "Hpartial");
	console_flush(&s);
	CHECK_STREQ(written(fd), "Hrule\nKx\nHtitle\nHpartial\n");

	/* A sink that goes away leaves nothing held. */
	say(&s, 0, "Hrule\n");
	CHECK(serial_set_line_sink(&s, "script", NULL, NULL, why, sizeof(why)) == 0);
	CHECK_STREQ(written(fd), "Hrule\n");
	say(&s, 0, "Dshown\n");
	CHECK_STREQ(written(fd), "Dshown\n");

	free(long_line);
	free(expect);
	serial_destroy(&s);
	close(fd);
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
	test_hold();
	return check_exit_status("test-serial");
}
