/* fuzz-bzimage.c: the bzImage header parser on arbitrary files. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "vmm/image/bzimage.h"

/*
 * Whatever the bytes, the parser reads only inside them, and what it
 * accepts describes a kernel that lies wholly inside the file, after a
 * setup header that does too, with room for the 64-bit entry.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bzimage_info info;
	char why[512];
	/* A copy of exactly @size bytes, so ASan sees any read past the end. */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	why[0] = '\0';
	if (bzimage_parse(copy, size, "fuzz", &info, why, sizeof(why)) == 0) {
		if (info.header_end > size || info.header_end < BZ_HEADER_END_MIN)
			abort();
		if (info.kernel_offset + info.kernel_size != size ||
		    info.kernel_offset != (uint64_t)(info.setup_sects + 1) * BZ_SECTOR)
			abort();
		if (info.kernel_size <= BZ_ENTRY64_OFFSET || info.init_size < info.kernel_size)
			abort();
		if (!bzimage_sniff(copy, size))
			abort();
	} else if (!why[0] || strncmp(why, "fuzz: ", 6) != 0) {
		abort(); /* every refusal names the file and says why */
	}
	free(copy);
	return 0;
}
