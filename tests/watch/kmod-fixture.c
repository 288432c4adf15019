/* kmod-fixture.c: a stand-in Linux module for test-kmod: a function with an inlined callee. */
int fixture_counter;

static inline __attribute__((always_inline)) void fixture_bump(int by)
{
	__atomic_fetch_add(&fixture_counter, by, __ATOMIC_RELAXED);
}

__attribute__((noinline)) int fixture_outer(int x)
{
	fixture_bump(x);
	return fixture_counter * 3;
}

/* The same name as a function of the "vmlinux": the module's must be taken. */
__attribute__((noinline)) int mid(int x)
{
	return fixture_outer(x) + 1;
}

/*
 * ORC entries as objtool writes them in a module: each IP a PC32
 * relocation against the code, each entry "CALL, previous SP = SP + 8"
 * (a function that pushed nothing), in Linux 6.1's layout.
 */
__asm__(".pushsection .orc_unwind_ip,\"a\"\n"
	".long fixture_outer - .\n"
	".long mid - .\n"
	".popsection\n"
	".pushsection .orc_unwind,\"a\"\n"
	".short 8, 0, 0x0005\n"
	".short 8, 0, 0x0005\n"
	".popsection\n");
