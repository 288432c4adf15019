/* fuzz-elf.c: the guest ELF loader on arbitrary files. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmm/image/elf_guest.h"

/* Big enough for small images to load, small enough to clear per input. */
#define FUZZ_RAM_SIZE (4u << 20)

static uint8_t ram[FUZZ_RAM_SIZE];

/*
 * The loader takes a path, as csan-vmm does; a memfd gives every input a
 * path without touching the disk, and exercises the same open/fstat code.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_guest g;
	char path[64], why[512];
	int fd;
	size_t i;

	fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	why[0] = '\0';
	if (elf_guest_open(path, &g, why, sizeof(why)) == 0) {
		/* Every accepted image must also be safe to size and load. */
		if (elf_guest_check_fits(&g, FUZZ_RAM_SIZE, why, sizeof(why)) == 0 &&
		    elf_guest_load(&g, ram, FUZZ_RAM_SIZE, why, sizeof(why)) != 0)
			abort(); /* fits, yet does not load: the two checks disagree */
		for (i = 0; i < g.nscenarios; i++)
			if (elf_guest_find_scenario(&g, g.scenarios[i].name) != &g.scenarios[i])
				abort(); /* names are checked unique */
		elf_guest_close(&g);
	} else if (!why[0]) {
		abort(); /* every rejection says why */
	}
	elf_guest_close(&g);
	close(fd);
	return 0;
}
