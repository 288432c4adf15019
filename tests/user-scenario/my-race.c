/* my-race.c: a scenario living outside the tree: a stamp published and polled plainly. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

#include "my-race.h"

/*
 * CPU 0 publishes a stamp with a plain store; every other CPU polls it
 * with a plain load.  Two CPUs, one of them writing, no lock and no
 * marking: a data race.  The fix is WRITE_ONCE() in my_race_publish()
 * and READ_ONCE() in my_race_poll() (marking only one side still leaves
 * a race).  Both modes report "data-race in my_race_poll / my_race_publish".
 */

static uint64_t my_race_stamp; /* the racy variable */

static __noinline void my_race_publish(uint64_t v)
{
	my_race_stamp = v;
}

static __noinline uint64_t my_race_poll(void)
{
	return my_race_stamp;
}

static uint64_t my_race_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		my_race_publish(my_race_next(i));
		return 0;
	}
	return my_race_poll();
}

static const struct zoo_row my_race_row = {
	.step = my_race_step,
	.min_cpus = 2,
	.budget_ms = 30000,
	.expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
	/* The publisher's write may also be seen one-sided: zoo.h. */
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("my-race", "a user's scenario: a stamp published and polled with plain accesses",
	     my_race_row);
