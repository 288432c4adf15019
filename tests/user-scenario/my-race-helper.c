/* my-race-helper.c: my-race's uninstrumented unit (USER_UNINSTR). */
#include "my-race.h"

/*
 * Touches no shared memory, so leaving it unchecked hides nothing; it is
 * here to show (and test) the uninstrumented half of the build hook.
 */
uint64_t my_race_next(uint64_t v)
{
	return v * 6364136223846793005ull + 1442695040888963407ull;
}
