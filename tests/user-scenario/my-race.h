/* my-race.h: what my-race.c and its uninstrumented helper share. */
#ifndef MY_RACE_H
#define MY_RACE_H

#include <stdint.h>

/* The next stamp after @v; in my-race-helper.c, built without instrumentation. */
uint64_t my_race_next(uint64_t v);

#endif /* MY_RACE_H */
