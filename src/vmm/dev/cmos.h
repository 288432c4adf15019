/* cmos.h: the MC146818 RTC/CMOS at ports 0x70-0x71, reading the host's clock. */
#ifndef CSAN_VMM_CMOS_H
#define CSAN_VMM_CMOS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct vcpu;

#define CMOS_PORT_INDEX 0x70
#define CMOS_NPORTS	2

/*
 * Linux reads the wall clock here at boot ("Unable to read current time
 * from RTC" without it); the time registers show the host's UTC time in
 * BCD, the other 120-odd bytes are RAM the guest may write and read back.
 */
struct cmos {
	pthread_mutex_t lock;
	uint8_t index;
	uint8_t ram[128];
};

void cmos_init(struct cmos *c);
void cmos_destroy(struct cmos *c);

/* cmos_io - the pio_handler for ports CMOS_PORT_INDEX..+1; @ctx is the cmos. */
int cmos_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	    unsigned size, unsigned count);

#endif /* CSAN_VMM_CMOS_H */
