/* cmos.c: the MC146818 RTC/CMOS at ports 0x70-0x71, reading the host's clock. */
#include <string.h>
#include <time.h>

#include "vmm/dev/cmos.h"
#include "vmm/kvm/vcpu.h"

/* Register numbers and bits (MC146818A data sheet; Linux's mc146818rtc.h). */
#define RTC_SECONDS	 0x00
#define RTC_MINUTES	 0x02
#define RTC_HOURS	 0x04
#define RTC_DAY_OF_WEEK	 0x06
#define RTC_DAY_OF_MONTH 0x07
#define RTC_MONTH	 0x08
#define RTC_YEAR	 0x09
#define RTC_REG_A	 0x0a
#define RTC_REG_B	 0x0b
#define RTC_REG_C	 0x0c
#define RTC_REG_D	 0x0d
#define RTC_CENTURY	 0x32 /* the PC's convention */

#define RTC_REG_A_DIV_32K 0x20 /* divider on, 32.768 kHz time base; UIP never set */
#define RTC_REG_A_RATE	  0x06
#define RTC_REG_B_24H	  0x02 /* 24-hour, BCD, no interrupts */
#define RTC_REG_D_VRT	  0x80 /* valid RAM and time: the battery is fine */
#define CMOS_INDEX_MASK	  0x7f /* bit 7 of the index port gates NMIs */

static uint8_t bcd(int v)
{
	return (uint8_t)((v / 10) << 4 | (v % 10));
}

/* The clock registers show the host's UTC time; the rest is plain RAM. */
static uint8_t cmos_read(struct cmos *c, uint8_t reg)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	switch (reg) {
	case RTC_SECONDS: return bcd(tm.tm_sec > 59 ? 59 : tm.tm_sec);
	case RTC_MINUTES: return bcd(tm.tm_min);
	case RTC_HOURS: return bcd(tm.tm_hour);
	case RTC_DAY_OF_WEEK: return bcd(tm.tm_wday + 1);
	case RTC_DAY_OF_MONTH: return bcd(tm.tm_mday);
	case RTC_MONTH: return bcd(tm.tm_mon + 1);
	case RTC_YEAR: return bcd(tm.tm_year % 100);
	case RTC_CENTURY: return bcd((tm.tm_year + 1900) / 100);
	case RTC_REG_A: return RTC_REG_A_DIV_32K | RTC_REG_A_RATE;
	case RTC_REG_B: return RTC_REG_B_24H;
	case RTC_REG_C: return 0; /* no interrupt pending */
	case RTC_REG_D: return RTC_REG_D_VRT;
	default: return c->ram[reg];
	}
}

int cmos_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	    unsigned size, unsigned count)
{
	struct cmos *c = ctx;
	size_t i, n = (size_t)size * count;

	(void)vcpu;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < n; i++) {
		bool index_port = port + (i % size) == CMOS_PORT_INDEX;

		if (index_port && is_write)
			c->index = data[i] & CMOS_INDEX_MASK;
		else if (index_port)
			data[i] = c->index;
		else if (is_write)
			c->ram[c->index] =
				data[i]; /* the clock ignores writes: the host's time rules */
		else
			data[i] = cmos_read(c, c->index);
	}
	pthread_mutex_unlock(&c->lock);
	return VCPU_RESUME;
}

void cmos_init(struct cmos *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
}

void cmos_destroy(struct cmos *c)
{
	pthread_mutex_destroy(&c->lock);
}
