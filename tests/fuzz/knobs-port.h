/* knobs-port.h: the runtime port's fast-path hooks, for fuzz-knobs on the host. */
#ifndef CSAN_FUZZ_KNOBS_PORT_H
#define CSAN_FUZZ_KNOBS_PORT_H

#include <stdbool.h>

/* knobs.c runs on one "CPU", in task context. */
static inline unsigned int csan_port_cpu(void)
{
	return 0;
}

static inline bool csan_port_in_interrupt(void)
{
	return false;
}

static inline void csan_port_relax(void)
{
}

#define CSAN_PORT_STACK_SIZE 16384

#endif /* CSAN_FUZZ_KNOBS_PORT_H */
